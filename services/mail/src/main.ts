/** The mail service process (server.ts declares what it runs). */
import { runTixService } from '@tix/kit';
import { mailService } from './server.js';

await runTixService(mailService());
