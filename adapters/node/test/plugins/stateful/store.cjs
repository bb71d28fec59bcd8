// A CommonJS dependency with module-level state (shared by every engine
// instance of one module instance).
const kept = [];
module.exports = { kept };
