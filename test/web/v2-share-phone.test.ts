// Sharing a meeting inside the firm (issue 25 item 7) at phone size (Pixel 7: touch, mobile): the flow is test/web/v2-share-flow.ts.
import { setDefaultTimeout } from "bun:test";
import { devices } from "playwright-core";
import { sharingFlow } from "./v2-share-flow.ts";

setDefaultTimeout(90_000);

sharingFlow("phone", { ...devices["Pixel 7"] });
