// Shim of `openclaw/plugin-sdk/logging-core`.
const SECRET = /((?:api[_-]?key|token|secret|password|authorization)\s*[:=]\s*)("?)[^\s"]+\2/gi;

export function redactSensitiveText(text) {
  return String(text).replace(SECRET, "$1$2[REDACTED]$2").replace(/\bsk-[A-Za-z0-9_-]{8,}/g, "sk-[REDACTED]");
}
