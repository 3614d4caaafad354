@_exported import Tether
