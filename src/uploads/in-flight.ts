import { ApiError } from "../errors/api-error.ts";

/**
 * Uploads being received right now, per account. Each holds a temp file that grows up to 2 GB,
 * so an account may run only as many at once as its plan has processing slots: fifty parallel
 * uploads from one key cannot fill the data disk before any of them is refused.
 */
export class UploadsInFlight {
  private readonly counts = new Map<string, number>();

  /** Takes one of the account's upload places or refuses (429); call the returned release exactly once. */
  acquire(accountId: string, limit: number): () => void {
    const current = this.counts.get(accountId) ?? 0;
    if (current >= limit) {
      throw new ApiError(
        "parallel_processing_limit",
        `This account already has ${current} upload(s) in progress, as many as its plan allows at once. Retry when one has finished.`,
        { headers: { "Retry-After": "30" } },
      );
    }
    this.counts.set(accountId, current + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.counts.get(accountId) ?? 1) - 1;
      if (left > 0) this.counts.set(accountId, left);
      else this.counts.delete(accountId);
    };
  }

  inProgress(accountId: string): number {
    return this.counts.get(accountId) ?? 0;
  }
}
