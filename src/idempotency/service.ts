// What other domains use of idempotency/: the store of keys (routes that take an Idempotency-Key),
// the request hash, and forgetting a deleted resource's stored responses (inside its deletion).
export { forgetResource, hashRequest, IDEMPOTENCY_TTL_MS, IdempotencyStore, type CompleteInTransaction, type StoredResponse } from "./store.ts";
