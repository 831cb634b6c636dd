/** The comment service process (server.ts declares what it runs). */
import { runTixService } from '@tix/kit';
import { commentService } from './server.js';

await runTixService(commentService);
