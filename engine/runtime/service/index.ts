export { CacheService, RequestError, type LookupReply, type ServiceOptions } from './cache-service.js';
export { KeyMemo } from './key-memo.js';
