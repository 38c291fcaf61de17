export { CacheService, RequestError, type LookupReply, type ServiceOptions } from './cache-service.js';
