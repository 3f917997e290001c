import { randomBase62 } from "../lib/ids.ts";

/** A fresh id for every request, echoed in X-Request-Id, problem bodies and the request log. */
export function newRequestId(): string {
  return `req_${randomBase62(20)}`;
}
