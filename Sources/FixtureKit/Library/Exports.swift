// The library product is the operations and everything they stand on: a client
// that imports FixtureKit sees the models and the primitives' public API too.
@_exported import FixtureKitArchiveIO
@_exported import FixtureKitCrypto
@_exported import FixtureKitModels
@_exported import FixtureKitSQLite
@_exported import FixtureKitSystem
