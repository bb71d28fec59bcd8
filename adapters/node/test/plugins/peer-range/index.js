// The legacy port, packaged with lossless-claw 0.15.3's declared OpenClaw
// range (neither 2026.4.26 nor 2026.9.6 is inside it).
export { default } from "../legacy/index.js";
