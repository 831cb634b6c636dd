/**
 * The projects the signed-in user can see (GET /api/projects, with their statuses) and the one the
 * console works in: `?project=<slug>` when the URL names one, else the last one chosen (kept in
 * localStorage), else the first. A project the URL names becomes the remembered one, so that a link
 * without `?project=` (a ticket opened from a board that was opened by its URL) stays in it.
 */
import { computed, effect, signal } from '@preact/signals';
import { api, call } from './api/client';
import type { components } from './generated/api';
import { location, setQuery } from './router';

export type Project = components['schemas']['Project'];
const STORAGE_KEY = 'tix.project';

export const projects = signal<Project[] | null>(null);
const chosenSlug = signal<string | null>(readStoredSlug());

function readStoredSlug(): string | null {
  try {
    return window.localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export const currentProject = computed<Project | null>(() => {
  const list = projects.value;
  if (!list || list.length === 0) return null;
  const wanted = location.value.query.get('project') ?? chosenSlug.value;
  return list.find((project) => project.slug === wanted) ?? list[0]!;
});

export async function loadProjects(): Promise<void> {
  const answer = await call(api.GET('/projects'));
  projects.value = answer.projects;
}

function remember(slug: string): void {
  chosenSlug.value = slug;
  try {
    window.localStorage.setItem(STORAGE_KEY, slug);
  } catch {
    // Private windows may refuse storage; the URL still carries the choice.
  }
}

effect(() => {
  const named = location.value.query.get('project');
  if (named && named !== chosenSlug.peek() && projects.value?.some((project) => project.slug === named))
    remember(named);
});

/** Switches the console to `slug` (remembered for the next visit). */
export function chooseProject(slug: string): void {
  remember(slug);
  setQuery({ project: slug });
}
