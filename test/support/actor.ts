// An Actor (src/auth/actor.ts) for use-case tests: an account on a channel, with an API key or a web session.
import { addUser } from "../../src/auth/user-store.ts";
import type { Actor } from "../../src/auth/actor.ts";
import type { Conn } from "../../src/db/conn.ts";
import type { Plan } from "../../src/auth/plans.ts";
import type { Channel } from "../../src/lib/channel.ts";

export function testActor(userId: string, channel: Channel = "api", plan: Plan = "free"): Actor {
  return {
    account: { userId, plan },
    channel,
    credential: channel === "api" ? { type: "api_key", id: "key_test", name: null, scopes: [], expiresAt: null } : { type: "web_session", id: "session_test" },
  };
}

/** Two free accounts in the database as API actors: the one acting, and another whose rows it must never see. */
export async function actingAndOther(conn: Conn): Promise<[Actor, Actor]> {
  return [testActor((await addUser(conn, { email: "a@firm.example", plan: "free" })).id), testActor((await addUser(conn, { email: "b@firm.example", plan: "free" })).id)];
}
