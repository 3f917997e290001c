import { MAX_UPLOAD_FILE_BYTES } from "../uploads/limits.ts";

/**
 * A draft's recording arrives in numbered parts (the web app's recorder sends one whenever it
 * holds enough, its uploader one per slice of a large file), each stored as it comes, so a dropped
 * connection or a closed tab loses only the parts not yet sent: the browser sends the missing
 * ones again and finishes. What arrived is kept in the draft_parts table, written in the step
 * that renames a part's file into place, so no request lists or stats a draft's folder.
 *
 * Parts are bounded in size, from below (every part but the last) and above, and in number; all
 * of a draft's parts together by the upload limit, and all of an account's open drafts by
 * `DraftLimits`.
 */
export const MAX_PART_BYTES = 16 * 1024 * 1024;
/**
 * The least a part holds, unless it is the draft's last: the recorder gathers its 4-second chunks
 * until they reach it (islands/recorder.ts), the uploader's slices are 8 MiB. Without it a
 * client could store a recording as a million one-byte files.
 */
export const MIN_PART_BYTES = 256 * 1024;
/** As many parts as a recording at the upload limit needs at the minimum size (7,630 for 2 GB). */
export const MAX_PARTS = Math.ceil(MAX_UPLOAD_FILE_BYTES / MIN_PART_BYTES);

/** Bounds on one account's drafts (--max-open-drafts, --max-draft-bytes, --draft-idle-days). */
export interface DraftLimits {
  /** Drafts open at once. */
  maxOpen: number;
  /** Bytes the parts of all open drafts hold together. */
  maxBytes: number;
  /** How long a draft may go untouched before the retention sweep deletes it. */
  idleMs: number;
}
