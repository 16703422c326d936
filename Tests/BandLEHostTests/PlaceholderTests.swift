import BandLEHost
import BandHCI
import BandWire
import BandATT
import BandGATTServer
