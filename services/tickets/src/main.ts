/** The ticket service process (server.ts declares what it runs). */
import { runTixService } from '@tix/kit';
import { ticketService } from './server.js';

await runTixService(ticketService);
