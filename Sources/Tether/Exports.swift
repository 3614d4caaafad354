@_exported import TetherSignals
