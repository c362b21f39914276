/**
 * batch/v1 CronJobs (pkg/apis/batch/validation ValidateCronJobCreate, ValidateCronJobUpdate,
 * validateCronJobSpec, validateScheduleFormat, validateTimeZone, ValidateJobTemplateSpec).
 */
import type { FieldError } from '../errors.ts';
import { bool, byteLength, type JsonObject, num, obj, objOrEmpty, str } from './access.ts';
import { cronScheduleError, locationError } from './cron.ts';
import { child, invalid, notSupported, type Path, required } from './field.ts';
import { validateJobSpecFields } from './job.ts';
import { validateNonnegative, validateObjectMeta, validateObjectMetaUpdate } from './metadata.ts';
import { DNS1035_LABEL_MAX, nameIsDNSSubdomain } from './names.ts';

const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];
/** The controller appends `-<11-digit timestamp>` to make Job names, which must stay DNS labels. */
const MAX_CRONJOB_NAME = DNS1035_LABEL_MAX - 11;

function specOf(object: unknown): JsonObject {
  return objOrEmpty(objOrEmpty(object).spec);
}

/** validateScheduleFormat. */
function validateSchedule(schedule: string, allowTZ: boolean, timeZone: unknown, path: Path): FieldError[] {
  const errs: FieldError[] = [];
  const error = cronScheduleError(schedule);
  if (error) errs.push(invalid(path, schedule, error));
  if (allowTZ && schedule.includes('TZ') && typeof timeZone === 'string') {
    errs.push(invalid(path, schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  } else if (!allowTZ && schedule.includes('TZ')) {
    errs.push(invalid(path, schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  }
  return errs;
}

/** validateTimeZone. */
function validateTimeZone(timeZone: unknown, path: Path): FieldError[] {
  if (typeof timeZone !== 'string') return [];
  if (timeZone.length === 0) return [invalid(path, timeZone, 'timeZone must be nil or non-empty string')];
  for (const part of timeZone.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !/^[A-Za-z.\-_0-9+]{1,14}$/.test(part)) {
      return [invalid(path, timeZone, `unknown time zone ${timeZone}`)];
    }
  }
  const errs: FieldError[] = [];
  if (timeZone.toLowerCase() === 'local') {
    errs.push(
      invalid(
        path,
        timeZone,
        'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones',
      ),
    );
  }
  const error = locationError(timeZone);
  if (error) errs.push(invalid(path, timeZone, error));
  return errs;
}

/** ValidateJobTemplateSpec: the Job spec, whose selector the controller generates. */
function validateJobTemplate(template: unknown, path: Path): FieldError[] {
  const spec = objOrEmpty(objOrEmpty(template).spec);
  const specPath = child(path, 'spec');
  const errs = validateJobSpecFields(spec, specPath);
  if (obj(spec.selector))
    errs.push(invalid(child(specPath, 'selector'), spec.selector, '`selector` will be auto-generated'));
  if (bool(spec.manualSelector) === true)
    errs.push(notSupported(child(specPath, 'manualSelector'), true, ['nil', 'false']));
  return errs;
}

/** validateCronJobSpec. */
function validateCronJobSpec(spec: JsonObject, oldSpec: JsonObject | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const schedule = str(spec.schedule);
  if (schedule.length === 0) errs.push(required('spec.schedule'));
  else {
    const allowTZ = oldSpec !== undefined && str(oldSpec.schedule).includes('TZ');
    errs.push(...validateSchedule(schedule, allowTZ, spec.timeZone, 'spec.schedule'));
  }
  errs.push(...validateNonnegative(num(spec.startingDeadlineSeconds), 'spec.startingDeadlineSeconds'));
  if (!oldSpec || (oldSpec.timeZone ?? null) !== (spec.timeZone ?? null)) {
    errs.push(...validateTimeZone(spec.timeZone, 'spec.timeZone'));
  }
  const policy = str(spec.concurrencyPolicy);
  if (policy === '') errs.push(required('spec.concurrencyPolicy'));
  else if (!CONCURRENCY_POLICIES.includes(policy))
    errs.push(notSupported('spec.concurrencyPolicy', policy, CONCURRENCY_POLICIES));
  errs.push(...validateJobTemplate(spec.jobTemplate, 'spec.jobTemplate'));
  errs.push(...validateNonnegative(num(spec.successfulJobsHistoryLimit), 'spec.successfulJobsHistoryLimit'));
  errs.push(...validateNonnegative(num(spec.failedJobsHistoryLimit), 'spec.failedJobsHistoryLimit'));
  return errs;
}

/** ValidateCronJobCreate: names are subdomains of at most 52 characters. */
export function validateCronJob(cronJob: unknown): FieldError[] {
  const errs = validateObjectMeta(cronJob, { namespaced: true, nameFn: nameIsDNSSubdomain });
  errs.push(...validateCronJobSpec(specOf(cronJob), undefined));
  const name = str(objOrEmpty(objOrEmpty(cronJob).metadata).name);
  if (byteLength(name) > MAX_CRONJOB_NAME) {
    errs.push(invalid('metadata.name', name, `must be no more than ${MAX_CRONJOB_NAME} characters`));
  }
  return errs;
}

/** ValidateCronJobUpdate: the 52-character limit is not applied to existing CronJobs. */
export function validateCronJobUpdate(cronJob: unknown, old: unknown): FieldError[] {
  return [...validateObjectMetaUpdate(cronJob, old), ...validateCronJobSpec(specOf(cronJob), specOf(old))];
}
