export { DramArena } from './arena.js';
