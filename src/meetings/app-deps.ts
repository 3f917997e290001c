import type { JobQueue } from "../jobs/pg-boss-store.ts";
import type { AuditTrail } from "../audit/types.ts";
import type { Conn } from "../db/conn.ts";
import type { WalTruncation } from "../db/wal-truncation.ts";
import type { IdempotencyStore } from "../idempotency/service.ts";
import type { ParallelSlots } from "../jobs/slots.ts";
import type { Clock } from "../lib/time.ts";
import type { EgressPolicy } from "../net/egress.ts";
import type { DiskFloor } from "../storage/disk-space.ts";
import type { Storage } from "../storage/storage.ts";
import type { UploadsInFlight } from "../uploads/in-flight.ts";
import type { BillingSettings } from "../usage/settings.ts";
import type { Actor } from "../auth/actor.ts";
import type { DraftLimits } from "./draft-limits.ts";
import type { KnownTemplates } from "./receive.ts";
import type { MeetingRow } from "./store.ts";

/** What the meetings' use cases (meetings/app.ts and the families it spreads in) are built over. */
export interface MeetingsAppDeps {
  conn: Conn;
  /** Where recordings, draft parts and the steps' files live (--storage-dir). */
  storage: Storage;
  clock: Clock;
  slots: ParallelSlots;
  billing: BillingSettings;
  /** Where a queued job is announced to the workers (jobs/pg-boss-store.ts). */
  jobQueue: JobQueue;
  idempotency: IdempotencyStore;
  egress: EgressPolicy;
  maxUploadBytes: number;
  /** The document templates and personas of the catalogue, which meetings may ask for. */
  templates: KnownTemplates;
  /** Uploads being received per account, capped at the plan's processing slots. */
  uploads: UploadsInFlight;
  /** A recording's announced duration, reserved at admission. */
  measureRecording(path: string): Promise<number | null>;
  /** The data disk's reserve: below it, new recordings are refused (507). */
  minFreeDisk: DiskFloor;
  /** Bounds on each account's drafts, and how long an untouched one is kept. */
  drafts: DraftLimits;
  /** Truncates the database's WAL after a deletion (db/wal-truncation.ts). */
  wal: WalTruncation;
  publicApiUrl(): string;
  scheduler: { wake(): void; cancel(jobIds: string[]): void };
  /** Where reads of content and changes are recorded (audit/trail.ts); none in tests that do not look. */
  audit?: AuditTrail;
}

/** What the use-case families spread into meetingsApp share with it (meetings/app.ts). */
export interface MeetingAccess {
  /** One of the actor's meetings; any other id (another account's, or none) is a 404. */
  owned(actor: Actor, meetingId: string): Promise<MeetingRow>;
  /** Records what `actor` did to a meeting: ids and names of fields only, never content. */
  audited(actor: Actor, action: string, meetingId: string, detail?: Record<string, string | number | boolean | null>): void | Promise<void>;
}
