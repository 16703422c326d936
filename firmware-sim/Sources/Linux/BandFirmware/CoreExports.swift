// The band's logic lives in BandFirmwareCore (one source tree with the chip); everyone who
// imports the Linux band sees it too, as before the split.
@_exported import BandFirmwareCore
