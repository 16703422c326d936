#!/usr/bin/env python3
"""make-zip64.py ARCHIVE MEMBER-FILE COMPRESSION: a zip (ZIP_DEFLATED or ZIP_STORED) holding
apple_health_export/export_cda.xml and apple_health_export/export.xml (from MEMBER-FILE) in ZIP64 form:
the member's local header (zipfile's force_zip64), its central directory entry (sizes and offset
all 0xFFFFFFFF, the values in a ZIP64 extra field 0x0001) and the end of the directory (ZIP64 end
record, locator, and an end record of 0xFFFF/0xFFFFFFFF). The ZIP64 test fixture of the zip reader."""
import struct, sys, zipfile

archive, member, compression = sys.argv[1], sys.argv[2], getattr(zipfile, sys.argv[3])
with zipfile.ZipFile(archive, 'w', compression) as z:
    z.writestr('apple_health_export/export_cda.xml', '<cda/>')
    with open(member, 'rb') as source, z.open('apple_health_export/export.xml', 'w', force_zip64=True) as target:
        target.write(source.read())
data = open(archive, 'rb').read()
end = data.rindex(b'PK\x05\x06')
count, size, offset = struct.unpack('<HII', data[end + 10:end + 20])
directory = data[offset:offset + size]
# Central directory: every 32-bit size and offset of export.xml moved into a ZIP64 extra field.
entries, at = [], 0
while at < len(directory):
    fixed = bytearray(directory[at:at + 46])
    name_length, extra_length, comment_length = struct.unpack('<HHH', fixed[28:34])
    name = directory[at + 46:at + 46 + name_length]
    extra = directory[at + 46 + name_length:at + 46 + name_length + extra_length]
    comment = directory[at + 46 + name_length + extra_length:at + 46 + name_length + extra_length + comment_length]
    at += 46 + name_length + extra_length + comment_length
    if name.endswith(b'export.xml'):
        compressed, uncompressed = struct.unpack('<II', fixed[20:28])
        local = struct.unpack('<I', fixed[42:46])[0]
        # Drop an extra ZIP64 field zipfile may have written; write one with all three values.
        kept, i = b'', 0
        while i + 4 <= len(extra):
            tag, length = struct.unpack('<HH', extra[i:i + 4])
            if tag != 1: kept += extra[i:i + 4 + length]
            i += 4 + length
        if compressed == 0xFFFFFFFF or uncompressed == 0xFFFFFFFF:
            raise SystemExit('zipfile already wrote ZIP64 central sizes; unexpected')
        extra = kept + struct.pack('<HHQQQ', 1, 24, uncompressed, compressed, local)
        fixed[20:28] = struct.pack('<II', 0xFFFFFFFF, 0xFFFFFFFF)
        fixed[42:46] = struct.pack('<I', 0xFFFFFFFF)
        fixed[30:32] = struct.pack('<H', len(extra))
    entries.append(bytes(fixed) + name + extra + comment)
directory = b''.join(entries)
record_offset = offset + len(directory)
record = struct.pack('<IQHHIIQQQQ', 0x06064b50, 44, 45, 45, 0, 0, count, count, len(directory), offset)
locator = struct.pack('<IIQI', 0x07064b50, 0, record_offset, 1)
end_record = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
open(archive, 'wb').write(data[:offset] + directory + record + locator + end_record)
