import { ApiError } from "./api-error.ts";

/**
 * These answers leave the rest of the body unread: the connection is closed after them, or a
 * client still sending would wait on a full socket for a server that no longer reads.
 */
export const CLOSE_AFTER = { Connection: "close" };

/** 408: a request body stalled or crawled; the operator hears of it, since it held a connection. */
export function bodyTooSlow(reason: "idle" | "slow"): ApiError {
  const why = reason === "idle" ? "No byte of the request body arrived for too long" : "The request body arrived too slowly";
  return new ApiError("request_timeout", `${why}; the server stopped waiting. Nothing was kept.`, {
    headers: CLOSE_AFTER,
    warning: `request body given up: ${reason === "idle" ? "no data for the idle timeout" : "below the minimum rate"}`,
  });
}

/** The client closed the connection before the body ended (a 400 it will most likely never read). */
export function bodyIncomplete(): ApiError {
  return new ApiError("upload_incomplete", "The connection closed before the whole request body arrived. Nothing was kept.", {
    warning: "client disconnected before the request body ended",
  });
}

/** A disk that fills up (or a quota reached) while a body is written: the server's trouble, 507. */
export function diskFull(code: string): ApiError {
  return new ApiError("insufficient_storage", "The server ran out of disk space while receiving the upload. Nothing was kept.", {
    headers: CLOSE_AFTER,
    warning: `upload refused: the data disk is full (${code})`,
  });
}
