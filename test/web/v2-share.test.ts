// Sharing a meeting inside the firm (issue 25 item 7) at desk size: the flow is test/web/v2-share-flow.ts.
import { setDefaultTimeout } from "bun:test";
import { sharingFlow } from "./v2-share-flow.ts";

setDefaultTimeout(90_000);

sharingFlow("desk", { viewport: { width: 1280, height: 900 } });
