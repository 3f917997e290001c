import { isPlan, PLANS } from "../../auth/plans.ts";
import { DATA_DIR_OPTION, DATABASE_URL_OPTION } from "../../config-options.ts";
import type { Command } from "../command.ts";
import { UsageError } from "../options.ts";
import { EMAIL_OPTION, JSON_OPTION, OPERATOR, requireUser, withAdminApp } from "./shared.ts";

/** `admin plan set`, `admin cap set`, `admin credits grant`: what an account may use and pay. */
export const billingCommands: Record<string, Command> = {
  "plan set": {
    usage: "verbatim admin plan set --email E --plan free|standard|pro [--json]",
    summary: "Move a user to another plan: its monthly allowance, processing slots and rate limits.",
    options: [DATA_DIR_OPTION, DATABASE_URL_OPTION, EMAIL_OPTION, { name: "plan", type: "string", required: true, help: `Plan: ${PLANS.join(", ")}.` }, JSON_OPTION],
    async run(values, out) {
      const plan = values.plan as string;
      if (!isPlan(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(", ")}`);
      const user = await withAdminApp(values, async (admin, conn) => {
        const found = await requireUser(conn, values.email as string);
        await admin.setPlan(OPERATOR, found.id, plan);
        return found;
      });
      out(values.json ? JSON.stringify({ id: user.id, email: user.email, plan }) : `${user.email} is on the ${plan} plan`);
    },
  },
  "cap set": {
    usage: "verbatim admin cap set --email E --cap MINOR|none [--json]",
    summary: "Turn on-demand billing on with a monthly spend cap (minor units, e.g. cents), or off with none.",
    options: [DATA_DIR_OPTION, DATABASE_URL_OPTION, EMAIL_OPTION, { name: "cap", type: "string", required: true, valueName: "MINOR|none", help: "The monthly spend cap in minor units, or none." }, JSON_OPTION],
    async run(values, out) {
      const text = values.cap as string;
      const cap = text === "none" ? null : /^\d{1,12}$/.test(text) ? Number(text) : undefined;
      if (cap === undefined) throw new UsageError("--cap must be a whole number of minor units, or none");
      const user = await withAdminApp(values, async (admin, conn) => {
        const found = await requireUser(conn, values.email as string);
        await admin.setSpendCap(OPERATOR, found.id, cap);
        return found;
      });
      out(values.json ? JSON.stringify({ id: user.id, email: user.email, spend_cap: cap }) : cap === null ? `on-demand billing is off for ${user.email}` : `${user.email} may spend up to ${cap} minor units a month on demand`);
    },
  },
  "credits grant": {
    usage: "verbatim admin credits grant --email E --amount MINOR [--note TEXT] [--json]",
    summary: "Add credits (minor units) to a user's wallet for the current UTC month.",
    options: [
      DATA_DIR_OPTION,
      DATABASE_URL_OPTION,
      EMAIL_OPTION,
      { name: "amount", type: "int", required: true, help: "Minor units (e.g. cents), at least 1." },
      { name: "note", type: "string", help: "Why, for the record." },
      JSON_OPTION,
    ],
    async run(values, out) {
      const amount = Number(values.amount);
      const { user, period } = await withAdminApp(values, async (admin, conn) => {
        const found = await requireUser(conn, values.email as string);
        return { user: found, ...(await admin.grantCredits(OPERATOR, found.id, amount, (values.note as string | undefined) ?? null)) };
      });
      out(values.json ? JSON.stringify({ id: user.id, email: user.email, amount, period }) : `granted ${amount} minor units to ${user.email} for ${period}`);
    },
  },
};
