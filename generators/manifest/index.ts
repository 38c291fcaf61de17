export { MANIFEST_NAME, driftOf, manifestFile, readManifest, sha256, writeGenerated, type WriteResult } from './manifest.js';
