/** The activity service process (server.ts declares what it runs). */
import { runTixService } from '@tix/kit';
import { activityService } from './server.js';

await runTixService(activityService());
