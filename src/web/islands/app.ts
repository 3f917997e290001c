/**
 * The web app's one script, loaded by every page (script-src 'self'): each part enhances the
 * elements of its page when they are there, and every page works without it.
 */
import { enhanceCopyButtons } from "./copy.ts";
import { enhanceCorrector } from "./corrector.ts";
import { enhanceListSelect } from "./list-select.ts";
import { enhanceLiveTranscript } from "./live-transcript.ts";
import { enhanceConfirmations } from "./err-confirm.ts";
import { enhancePlayer } from "./player.ts";
import { enhanceProgress } from "./progress.ts";
import { enhanceRecorder } from "./recorder.ts";
import { enhanceUploader } from "./uploader.ts";
import { enhanceWorkspace } from "./ws-workspace.ts";

enhancePlayer();
enhanceCorrector();
enhanceProgress();
enhanceCopyButtons();
enhanceUploader();
enhanceRecorder();
enhanceListSelect();
enhanceLiveTranscript();
enhanceWorkspace();
enhanceConfirmations();
