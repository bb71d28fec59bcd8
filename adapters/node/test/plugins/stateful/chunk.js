// A second ESM module of the plugin, imported relatively (a bundle's chunk).
export const chunkSeen = [];
