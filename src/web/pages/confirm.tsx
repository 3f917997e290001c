import { CsrfField, type PageFrame } from "../layout.tsx";

/**
 * A form that is one button for an action that cannot be taken back (revoke a key, delete a
 * webhook, rotate its secret), asking first. Without script: a box to tick ("I understand…",
 * required; the route refuses the post without confirm=yes). With script (islands/err-confirm.ts):
 * the box is hidden and the browser's own confirm() asks `question` instead.
 */
export function ConfirmButton(props: { frame: PageFrame; action: string; label: string; understood: string; question: string; kind?: "secondary" | "danger"; ariaLabel?: string }) {
  return (
    <form method="post" action={props.action} class="confirm" data-confirm={props.question}>
      <CsrfField frame={props.frame} />
      <ConfirmBox label={props.understood} />
      <button type="submit" class={props.kind} aria-label={props.ariaLabel}>
        {props.label}
      </button>
    </form>
  );
}

/** The "I understand" box of a confirmed form (the island swaps it for a confirm() step). */
export function ConfirmBox({ label }: { label: string }) {
  return (
    <label class="inline" data-confirm-box>
      <input type="checkbox" name="confirm" value="yes" required /> {label}
    </label>
  );
}
