/** The attachment service process (server.ts declares what it runs). */
import { runTixService } from '@tix/kit';
import { attachmentService } from './server.js';

await runTixService(attachmentService());
