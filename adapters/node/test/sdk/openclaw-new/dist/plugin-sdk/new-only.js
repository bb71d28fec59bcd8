export const here = true;
// Module state of a sub-path without host-bound functions (no data: URL in between).
let calls = 0;
export function countNewOnly() {
  return ++calls;
}
