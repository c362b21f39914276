/** The payload schema of a sealed value (src/jobs/sealing.ts): producers seal before enqueueing. */
import { z } from 'zod';
import { SEALED } from '../sealing.ts';

export const sealedValue = z
  .string()
  .regex(
    SEALED,
    'must be a value sealed with the fleet key (lss1.…); producers seal values before enqueueing',
  );
