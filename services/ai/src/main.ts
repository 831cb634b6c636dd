/** The assistant's process (server.ts declares what it runs). */
import { runTixService } from '@tix/kit';
import { aiService } from './server.js';

await runTixService(aiService());
