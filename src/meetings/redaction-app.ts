import { AUDIT_ACTIONS } from "../audit/actions.ts";
import { actorEntry, NO_AUDIT_TRAIL, type AuditTrail } from "../audit/types.ts";
import type { Actor } from "../auth/actor.ts";
import type { Conn } from "../db/conn.ts";
import { parseOrThrow } from "../http/validation.ts";
import type { Clock } from "../lib/time.ts";
import { NO_DEFAULTS, redactionSettingsInput, type RedactionDefaults } from "./redaction.ts";
import { findRedactionDefaults, storeRedactionDefaults } from "./redaction-store.ts";

/**
 * The account's redaction default (issue 23): what a meeting that does not say `redact_pii` gets.
 * Its own file beside meetingsApp, which offers these two use cases to both front ends.
 */
export function redactionSettingsApp(deps: { conn: Conn; clock: Clock; audit?: AuditTrail }) {
  const audit = deps.audit ?? NO_AUDIT_TRAIL;
  return {
    /** The account's redaction default (none set: disabled, every kind, text only, no case pattern). */
    async redactionDefaults(actor: Actor): Promise<RedactionDefaults> {
      return findRedactionDefaults(deps.conn, actor.account.userId);
    },

    /**
     * Replaces the account's redaction default, validated (400 naming an unknown entity kind or a
     * pattern refused); used by the meetings created from then on that do not say. The default
     * after. The audit trail records the change with its switches, never the case pattern.
     */
    async setRedactionDefaults(actor: Actor, input: unknown): Promise<RedactionDefaults> {
      const body = parseOrThrow(redactionSettingsInput, input);
      const defaults: RedactionDefaults = {
        enabled: body.enabled,
        entities: body.entities ?? NO_DEFAULTS.entities,
        audio: body.audio,
        caseNumberPattern: body.case_number_pattern,
      };
      await storeRedactionDefaults(deps.conn, actor.account.userId, defaults, deps.clock.now());
      await audit.record(
        actorEntry(actor, AUDIT_ACTIONS.redactionSettingsChanged, null, {
          enabled: defaults.enabled,
          audio: defaults.audio,
          entities: defaults.entities.length,
          case_number_pattern: defaults.caseNumberPattern !== null,
        }),
      );
      return defaults;
    },
  };
}
