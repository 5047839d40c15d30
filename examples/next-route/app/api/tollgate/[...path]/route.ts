/**
 * A Next.js App Router route handler serving every tollgate path below /api/tollgate:
 * POST /api/tollgate/v1/chat/completions, GET /api/tollgate/v1/models.
 */
import { handler } from '../../../../lib/tollgate.js';

// The Edge runtime; remove this line to run on the Node.js runtime: the handler is the same.
export const runtime = 'edge';
// Never cache or prerender: every request is governed.
export const dynamic = 'force-dynamic';

export const POST = handler;
export const GET = handler;
