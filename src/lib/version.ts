/** The API version reported by GET /v1/me and every event (SPEC section 9). */
export const API_VERSION = "2026-10-01";
export const SERVICE_VERSION = "0.1.0";
