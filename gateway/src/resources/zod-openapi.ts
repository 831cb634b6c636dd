/**
 * Gives zod schemas `.openapi()` (zod-to-openapi's component names and metadata). Imported first by
 * the modules that name components, so the method exists before their schemas are built. It only
 * adds a method to zod's prototypes; validation is unchanged.
 */
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

export { z };
