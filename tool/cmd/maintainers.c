// SPDX-License-Identifier: GPL-2.0
/*
 * Matching follows get_maintainer.pl: an F:/X: pattern ending in / covers
 * everything below that directory, a pattern naming a directory does too,
 * the glob characters do not cross /, and the section whose pattern has the
 * most path components wins.  N: is a regex on the path (as specific as
 * the path is deep); K: a regex on the patch, used when nothing else
 * matches.
 */
#include <fnmatch.h>
#include <string.h>

#include "maintainers.h"

static struct msection *section_new(const char *title, guint index)
{
	struct msection *s = g_new0(struct msection, 1);

	s->title = g_strdup(title);
	s->index = index;
	s->maintainers = g_ptr_array_new_with_free_func(g_free);
	s->reviewers = g_ptr_array_new_with_free_func(g_free);
	s->lists = g_ptr_array_new_with_free_func(g_free);
	s->files = g_ptr_array_new_with_free_func(g_free);
	s->excludes = g_ptr_array_new_with_free_func(g_free);
	s->regexes = g_ptr_array_new_with_free_func(
		(GDestroyNotify)g_regex_unref);
	s->keywords = g_ptr_array_new_with_free_func(
		(GDestroyNotify)g_regex_unref);
	return s;
}

static void section_free(gpointer p)
{
	struct msection *s = p;

	g_free(s->title);
	g_ptr_array_free(s->maintainers, TRUE);
	g_ptr_array_free(s->reviewers, TRUE);
	g_ptr_array_free(s->lists, TRUE);
	g_ptr_array_free(s->files, TRUE);
	g_ptr_array_free(s->excludes, TRUE);
	g_ptr_array_free(s->regexes, TRUE);
	g_ptr_array_free(s->keywords, TRUE);
	g_free(s);
}

/* "X:\tvalue" -> 'X', "value" */
static bool tag_line(const char *line, char *tag, const char **value)
{
	if (!g_ascii_isupper(line[0]) || line[1] != ':' ||
	    (line[2] != '\t' && line[2] != ' '))
		return false;
	*tag = line[0];
	*value = line + 2;
	while (**value == ' ' || **value == '\t')
		(*value)++;
	return true;
}

static void add_tag(struct msection *s, char tag, const char *value)
{
	GRegex *re;

	switch (tag) {
	case 'M':
		g_ptr_array_add(s->maintainers, g_strdup(value));
		break;
	case 'R':
		g_ptr_array_add(s->reviewers, g_strdup(value));
		break;
	case 'L':
		g_ptr_array_add(s->lists, g_strdup(value));
		break;
	case 'F':
		g_ptr_array_add(s->files, g_strdup(value));
		break;
	case 'X':
		g_ptr_array_add(s->excludes, g_strdup(value));
		break;
	case 'N':
	case 'K':
		re = g_regex_new(value, 0, 0, NULL);
		if (re)
			g_ptr_array_add(tag == 'N' ? s->regexes : s->keywords,
					re);
		break;
	default:
		break;
	}
}

struct maintainers *maintainers_parse(const char *root, const char *text)
{
	struct maintainers *m = g_new0(struct maintainers, 1);
	struct msection *cur = NULL;
	char *title = NULL;
	char **lines;

	m->root = g_strdup(root);
	m->sections = g_ptr_array_new_with_free_func(section_free);
	lines = g_strsplit(text, "\n", -1);
	for (int i = 0; lines[i]; i++) {
		char *line = g_strchomp(lines[i]);
		const char *value;
		char tag;

		if (!line[0]) {
			cur = NULL;
			g_free(title);
			title = NULL;
		} else if (tag_line(line, &tag, &value)) {
			/* a section begins with its first tag line */
			if (!cur && title) {
				cur = section_new(title, m->sections->len);
				g_ptr_array_add(m->sections, cur);
			}
			if (cur)
				add_tag(cur, tag, value);
		} else if (line[0] != ' ' && line[0] != '\t' && !cur) {
			g_free(title);
			title = g_strdup(line);
		}
	}
	g_free(title);
	g_strfreev(lines);
	return m;
}

struct maintainers *maintainers_load(const char *root, GError **error)
{
	char *path = g_build_filename(root, "MAINTAINERS", NULL);
	struct maintainers *m;
	char *text;

	if (!g_file_get_contents(path, &text, NULL, error)) {
		g_free(path);
		return NULL;
	}
	g_free(path);
	m = maintainers_parse(root, text);
	g_free(text);
	return m;
}

void maintainers_free(struct maintainers *m)
{
	if (!m)
		return;
	g_ptr_array_free(m->sections, TRUE);
	g_free(m->root);
	g_free(m);
}

static int depth(const char *pattern)
{
	int n = 1;

	for (const char *p = pattern; *p; p++)
		if (*p == '/' && p[1])
			n++;
	return n;
}

/* How specifically `pattern` covers `path`: its depth, or 0. */
static int pattern_match(const struct maintainers *m, const char *pattern,
			 const char *path)
{
	size_t n = strlen(pattern);
	bool glob = strpbrk(pattern, "*?[") != NULL;

	if (n && pattern[n - 1] == '/') {
		if (glob) {
			/* a glob directory: anything below one that matches */
			for (const char *p = path; (p = strchr(p, '/')); p++) {
				char *dir = g_strndup(path, p - path + 1);
				int ok = !fnmatch(pattern, dir, FNM_PATHNAME);

				g_free(dir);
				if (ok)
					return depth(pattern);
			}
			return 0;
		}
		return g_str_has_prefix(path, pattern) ? depth(pattern) : 0;
	}
	if (glob)
		return fnmatch(pattern, path, FNM_PATHNAME) ? 0 :
							      depth(pattern);
	if (!strcmp(pattern, path))
		return depth(pattern);
	/* a directory named without its slash */
	if (g_str_has_prefix(path, pattern) && path[n] == '/') {
		char *abs = g_build_filename(m->root, pattern, NULL);
		bool dir = g_file_test(abs, G_FILE_TEST_IS_DIR);

		g_free(abs);
		return dir ? depth(pattern) : 0;
	}
	return 0;
}

static int section_match(const struct maintainers *m,
			 const struct msection *s, const char *path)
{
	int best = 0;

	for (guint i = 0; i < s->excludes->len; i++)
		if (pattern_match(m, s->excludes->pdata[i], path))
			return -1;
	for (guint i = 0; i < s->files->len; i++)
		best = MAX(best, pattern_match(m, s->files->pdata[i], path));
	for (guint i = 0; i < s->regexes->len; i++)
		if (g_regex_match(s->regexes->pdata[i], path, 0, NULL))
			best = MAX(best, depth(path));
	return best;
}

const struct msection *maintainers_for(const struct maintainers *m,
				       const char *path, const char *text)
{
	const struct msection *best = NULL;
	int best_depth = 0;

	for (guint i = 0; i < m->sections->len; i++) {
		const struct msection *s = m->sections->pdata[i];
		int d = section_match(m, s, path);

		if (d > best_depth) {
			best = s;
			best_depth = d;
		}
	}
	if (best || !text)
		return best;
	for (guint i = 0; i < m->sections->len; i++) {
		const struct msection *s = m->sections->pdata[i];

		if (section_match(m, s, path) < 0)
			continue;
		for (guint k = 0; k < s->keywords->len; k++)
			if (g_regex_match(s->keywords->pdata[k], text, 0, NULL))
				return s;
	}
	return NULL;
}
