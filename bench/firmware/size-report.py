#!/usr/bin/env python3
"""The firmware image's flash and RAM by symbol, by Swift module and by what the code does.

    python3 bench/firmware/size-report.py ELF [--top N] [--only module|area|symbols] [--json FILE] [--baseline FILE]

Reads ELF and the linker map ld.lld wrote beside it (ELF's name with .map: firmware-sim/board/build.sh
links with -Map), so only what --gc-sections kept is counted. Every input section the map lists is one
function or one constant (the image is compiled with -function-sections), named by its mangled
symbol; `swift demangle` names it for people. Three tables (Markdown) on stdout:

  by module  the Swift module that declares the code (a generic specialised into another object
             is counted where it was declared: `GATTServer.handle<BandAttributeSource>` compiled
             into Main.o is BandGATTServer's), then libgcc's soft-float and integer helpers, the
             board's C (start.c, libm.c) and the linker's merged constants
  by area    what the code is for: the sensor model, each GATT service, crypto, the runtime …
             (the rules are AREAS below: the first whose pattern matches the demangled name)
  symbols    the N largest (default 25)

--json FILE also writes every symbol with its size, section kind, module and area; --baseline FILE
(such a file from another build) then adds what changed: flash by area and the symbols that grew,
shrank, came or went, so one build's saving is measured symbol by symbol. Exit 0 ok, 1 a missing or
unreadable map or baseline, 64 usage.
"""
import collections, json, re, subprocess, sys

# What each piece of the image is for, from its demangled name: the first match wins, so the
# specific rows come before the general ones. A row is (area, regular expression).
AREAS = [
    ("soft-float (libgcc: double arithmetic and conversions)", r"^libgcc:_(arm_|aeabi_d|fix|float|unord|muldf|adddf|subdf|divdf|cmpdf|extend|trunc)"),
    ("integer helpers (libgcc: 64-bit division)", r"^libgcc:"),
    ("libm (board libm.c: log exp sin cos sqrt ceil round)", r"^libm\.o:"),
    ("board C (start.c: vectors, UART, SysTick, flash, memcpy/memset, allocator hook)", r"^start\.o:"),
    ("linker-merged constants (strings, CRC table copies)", r"^<internal>"),
    ("crypto: SHA-256, HMAC, HMAC_DRBG", r"FirmwareCrypto\.|BandAuthenticator"),
    ("sensor model (heart, motion, energy, wearer, random stream)", r"\b(HeartModel|MotionModel|EnergyModel|Wearer|Xoshiro256StarStar|ActivityKind|SecondSample)\b"),
    ("scenario (day plans, segments, faults)", r"(Scenario|ScenarioSegment|ScenarioParser|ScenarioSegmentMessage|FaultPlan|FaultSpec|BandFaultMessage)\b"),
    ("minute accumulation and band clock (BandCore tick)", r"\b(BandCore|MinuteAccumulator|DailyCounters|BandClock|BandInstant|CivilTime|CivilCalendar|BandConfiguration)\b"),
    ("flash: minute ring, state log, keys, boot record", r"\b(FlashImage|FlashMinuteLog|FlashStateLog|FlashSlot|KeyStore|MinuteRing|MinuteRingIndex|BootRecord|FlashLayout)\b"),
    ("GATT service: history (fetch, records, acknowledge)", r"History|MinuteRecord|HeartRateSummary|MinuteActivity"),
    ("GATT service: pairing and challenge (auth)", r"\b(AuthService|Auth\w*|Pairing\w*|Challenge\w*|Proof\w*)\b|handleAuth"),
    ("GATT service: Heart Rate", r"HeartRate|RRInterval|BodySensorLocation"),
    ("GATT service: RSC", r"RSC"),
    ("GATT service: Current Time", r"CurrentTime|LocalTime|DateTime|LocalTimeOffset"),
    ("GATT service: live activity notifications", r"LiveActivity|LiveNotifications|IndicationQueue"),
    ("GATT service: Device Information, Battery, GAP", r"DeviceInformation|BatteryLevel|SystemID|Appearance"),
    ("GATT server over the bring-up table (ChipRuntime's BoardAttributeSource, before the band starts)", r"^bring-up server |BoardAttributeSource"),
    ("GATT services: the attribute table (BandAttributeTable, Characteristic)", r"AttributeTable|Characteristic\b|\bCharacteristic\."),
    ("GATT services: BandServices (PDU dispatch, notifications, connection, its chip host)", r"BandAttributeSource|AttributeAccess|BandServices|ServiceConnection|Characteristic\b|BandServiceHost|ChipLinkHost|BandActivityService"),
    ("GATT server over the band's table (discovery, read, write)", r"BandGATTServer\.|GATTAttributeSource"),
    ("ATT PDUs (parse, encode)", r"BandATT\.|\bATT\w+"),
    ("GATT values (BandGATT)", r"BandGATT\."),
    ("UART framing and link messages", r"UARTFraming\.|UARTFrame|LinkMessage|LinkMessages"),
    ("on-chip self-test and bench (link messages 0x06, 0x07)", r"OnChipBench|SelfTest"),
    ("chip runtime (FirmwareRuntime, ChipBand, Main)", r"ChipRuntime\.|ChipBand|BandKitM4\.|FirmwareApplication"),
    ("wire primitives (ByteCursor, ByteWriter, UUIDs, CRC-32 and its table)", r"BandWire\."),
    ("Swift stdlib and runtime (arrays, Duration's 128-bit arithmetic, reference counting, lazy globals)", r"^Swift stdlib|^C and runtime|swift_|Unicode|String"),
]


def identifiers(mangled):
    """The length-prefixed identifiers in a mangled name (a global's initialiser names its type
    only there: `$e16BandFirmwareCore0A14AttributeTableO10attributes_WZ` → AttributeTable, attributes)."""
    found, index = [], 0
    while index < len(mangled):
        match = re.match(r"\d+", mangled[index:])
        if match and not mangled[index - 1:index].isdigit():
            length = int(match.group(0))
            start = index + len(match.group(0))
            found.append(mangled[start:start + length])
            index = start + length
        else:
            index += 1
    return found


def demangle(names, simplified=True):
    if not names:
        return {}
    try:
        out = subprocess.run(["swift", "demangle"] + (["--simplified"] if simplified else []), input="\n".join(names),
                             capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        out = names
    return dict(zip(names, out))


def declaring_module(mangled, origin):
    """The Swift module that declares a function or constant: the context its mangled name starts
    with (a specialisation or a closure is mangled as its original, so it stays with its module)."""
    if origin in ("libgcc", "libm.o", "start.o", "<internal>"):
        return {"libgcc": "libgcc (soft-float, 64-bit division)", "libm.o": "board libm.c", "start.o": "board start.c",
                "<internal>": "linker-merged constants (strings)"}[origin]
    match = re.match(r"^\$[es](?:(s)|(S[a-zA-Z])|(\d+)([A-Za-z_]\w*))", mangled)
    if not match:
        return "C and runtime in Swift objects (swift_once, allocation hooks)" if mangled else "unnamed (%s)" % origin
    if match.group(1) or match.group(2):
        return "Swift stdlib (specialised in the image)"
    return match.group(4)[: int(match.group(3))]


def read_map(path):
    """Input sections of the loaded output sections: (origin object, section, size, symbol)."""
    rows = []
    line_re = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+(\S.*?)\s*$")
    output = None
    current = None
    with open(path) as stream:
        for line in stream:
            m = line_re.match(line)
            if not m:
                continue
            size, name = int(m.group(2), 16), m.group(3)
            column = line.index(name)
            if column < 39:                # an output section (".text") or an assignment
                output = name if name.startswith(".") else output
                current = None
                continue
            if column < 47:                # an input section "object:(section)"
                current = None
                if output not in (".text", ".ARM.exidx", ".data", ".bss") or size == 0:
                    continue
                sm = re.match(r"(.*?):?\((\.[^)]*|COMMON)\)$", name)
                if not sm:
                    continue
                obj, section = sm.group(1), sm.group(2)
                origin = ("libgcc" if "libgcc" in obj else "<internal>" if obj == "<internal>"
                          else "unicode" if "UnicodeDataTables" in obj else obj.rsplit("/", 1)[-1])
                member = re.search(r"\(([^)]*)\.o\)$", obj)
                symbol = (section.split(".", 2)[2] if re.match(r"\.(text|rodata|data|bss)\.", section)
                          and not section.startswith((".data.rel.ro", ".rodata.str", ".rodata.cst")) else "")
                if origin == "libgcc" and member:
                    symbol = member.group(1)
                kind = ("text" if section.startswith((".text", ".ARM", ".vectors")) else "rodata" if section.startswith((".rodata", ".data.rel.ro"))
                        else "data" if section.startswith(".data") else "bss")
                current = {"origin": origin, "section": section, "size": size, "symbol": symbol, "kind": kind}
                rows.append(current)
            elif current is not None and not re.match(r"^\$[tda](\.|$)", name):
                current.setdefault("symbols", []).append((name, size))
    # A section holding several sized symbols (.data.rel.ro: one per constant) becomes one row each;
    # what they do not cover (switch tables, padding) is a row of its own, named by the section.
    pieces = []
    for r in rows:
        named = [(n, z) for n, z in r.pop("symbols", []) if z > 0]
        if not r["symbol"] and named and sum(z for _, z in named) <= r["size"]:
            for n, z in named:
                pieces.append(dict(r, symbol=n, size=z))
            spare = r["size"] - sum(z for _, z in named)
            if spare:
                pieces.append(dict(r, symbol="", size=spare))
        else:
            pieces.append(r)
    return pieces


def main(argv):
    args = argv[1:]
    top, json_path, baseline_path, only = 25, None, None, None
    if not args or args[0].startswith("-"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 64
    elf = args.pop(0)
    while args:
        flag = args.pop(0)
        if flag == "--top" and args and args[0].isdigit():
            top = int(args.pop(0))
        elif flag == "--json" and args:
            json_path = args.pop(0)
        elif flag == "--only" and args and args[0] in ("module", "area", "symbols"):
            only = args.pop(0)
        elif flag == "--baseline" and args:
            baseline_path = args.pop(0)
        else:
            print("size-report: unknown argument %r" % flag, file=sys.stderr)
            return 64
    map_path = re.sub(r"\.elf$", "", elf) + ".map"
    try:
        rows = read_map(map_path)
    except OSError as error:
        print("size-report: %s: %s (build with firmware-sim/board/build.sh, which writes it)" % (map_path, error.strerror), file=sys.stderr)
        return 1
    names = demangle(sorted({r["symbol"] for r in rows if r["symbol"].startswith("$")}))
    full = demangle(sorted({r["symbol"] for r in rows if r["symbol"].startswith("$")}), simplified=False)
    areas = [(area, re.compile(pattern)) for area, pattern in AREAS]
    for r in rows:
        r["name"] = names.get(r["symbol"], r["symbol"]) or "%s %s" % (r["origin"], r["section"])
        r["module"] = declaring_module(r["symbol"], r["origin"])
        if r["origin"] == "libgcc":
            label = "libgcc:" + r["symbol"]
        elif r["origin"] in ("libm.o", "start.o", "<internal>"):
            label = "%s:%s" % (r["origin"], r["name"])
        else:
            # The declaration's own name (the simplified form drops the specialisation's arguments,
            # which name other areas' types), with its module; a global's initialiser by its full name.
            label = "%s.%s" % (r["module"], r["name"])
            if "initialization" in r["name"] or "variable" in r["name"] or "outlined" in r["name"]:
                label += " " + " ".join(identifiers(r["symbol"]))
            if "BoardAttribute" in r["symbol"] and "GATTServer" in r["symbol"]:
                label = "bring-up server " + label
        r["area"] = next((area for area, pattern in areas if pattern.search(label)), "other (%s)" % r["module"])
        if r["origin"] == "unicode":
            r["area"] = r["module"] = "stdlib Unicode tables"
        r["flash"] = r["size"] if r["kind"] in ("text", "rodata", "data") else 0
        r["ram"] = r["size"] if r["kind"] in ("data", "bss") else 0

    def table(title, key):
        groups = collections.defaultdict(collections.Counter)
        for r in rows:
            groups[r[key]][r["kind"]] += r["size"]
            groups[r[key]]["count"] += 1
        print("| %s | code | constants | flash | share | RAM (data+bss) | pieces |" % title)
        print("|---|---:|---:|---:|---:|---:|---:|")
        total_flash = sum(r["flash"] for r in rows)
        for name, c in sorted(groups.items(), key=lambda item: -(item[1]["text"] + item[1]["rodata"] + item[1]["data"])):
            flash = c["text"] + c["rodata"] + c["data"]
            print("| %s | %d | %d | %d | %.1f %% | %d | %d |" % (name, c["text"], c["rodata"], flash, 100.0 * flash / total_flash,
                                                              c["data"] + c["bss"], c["count"]))
        print("| **image** | %d | %d | **%d** (%.1f KB) | | **%d** | %d |" % (
            sum(r["size"] for r in rows if r["kind"] == "text"), sum(r["size"] for r in rows if r["kind"] == "rodata"),
            total_flash, total_flash / 1024, sum(r["ram"] for r in rows), len(rows)))
        print()

    if only in (None, "module"):
        table("by module (declaring)", "module")
    if only in (None, "area"):
        table("by area", "area")
    if only in (None, "symbols"):
        print("| %d largest | bytes | kind | module |" % top)
        print("|---|---:|---|---|")
    for r in sorted(rows, key=lambda r: -r["size"])[:top] if only in (None, "symbols") else []:
        name = r["name"] if len(r["name"]) <= 110 else r["name"][:107] + "…"
        print("| `%s` | %d | %s | %s |" % (name.replace("|", "\\|"), r["size"], r["kind"], r["module"]))
    if baseline_path:
        try:
            with open(baseline_path) as stream:
                before = json.load(stream)
        except (OSError, ValueError) as error:
            print("size-report: baseline %s: %s" % (baseline_path, error), file=sys.stderr)
            return 1
        compare(before, rows, top)
    if json_path:
        with open(json_path, "w") as stream:
            json.dump([{k: r[k] for k in ("symbol", "name", "origin", "kind", "size", "module", "area")} for r in rows], stream, indent=0)
    return 0


def compare(before, after, top):
    """Flash by area before and after, and the symbols whose size changed most."""
    def flash(rows, key):
        sums = collections.Counter()
        for r in rows:
            if r["kind"] != "bss":
                sums[r[key]] += r["size"]
        return sums
    old, new = flash(before, "area"), flash(after, "area")
    print()
    print("| area | flash before | after | change |")
    print("|---|---:|---:|---:|")
    for area in sorted(set(old) | set(new), key=lambda a: new[a] - old[a]):
        if new[area] != old[area]:
            print("| %s | %d | %d | %+d |" % (area, old[area], new[area], new[area] - old[area]))
    print("| **image** | %d | %d | **%+d** |" % (sum(old.values()), sum(new.values()), sum(new.values()) - sum(old.values())))
    old_symbols, new_symbols = flash(before, "symbol"), flash(after, "symbol")
    names = {r["symbol"]: r["name"] for r in before + after}
    changes = sorted(((new_symbols[s] - old_symbols[s], s) for s in set(old_symbols) | set(new_symbols)
                      if new_symbols[s] != old_symbols[s] and s), key=lambda c: c[0])
    print()
    print("| symbol | before | after | change |")
    print("|---|---:|---:|---:|")
    for change, symbol in changes[:top] + [c for c in changes[-5:] if c[0] > 0 and c not in changes[:top]]:
        name = names.get(symbol, symbol)
        name = name if len(name) <= 100 else name[:97] + "…"
        print("| `%s` | %d | %d | %+d |" % (name.replace("|", "\\|"), old_symbols[symbol], new_symbols[symbol], change))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
