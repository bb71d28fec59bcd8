// A CommonJS dependency whose exports Node's ESM loader cannot detect
// statically (like node-sqlite3-wasm's): a named ESM import of it fails natively.
module.exports = (function build() {
  return { Database: class Database {} };
})();
