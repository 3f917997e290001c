/** A single sign-on the provider or its answer refused; the sentence is shown on the sign-in page. */
export class SsoRefused extends Error {}
