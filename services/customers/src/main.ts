/** The customer service process (server.ts declares what it runs). */
import { runTixService } from '@tix/kit';
import { customersService } from './server.js';

await runTixService(customersService());
