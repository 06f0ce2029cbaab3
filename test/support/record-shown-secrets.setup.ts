/** Every test file: the secrets its answers show are recorded for the end-of-run table scan (global-setup.ts). */
import { installFetchRecorder } from './shown-secrets.ts';

installFetchRecorder();
