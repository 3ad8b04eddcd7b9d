// SPDX-License-Identifier: GPL-2.0
/*
 * Output formats of timerconv check: gcc-style text, JSON, SARIF 2.1.0 and
 * GitHub workflow annotations.  Columns are 1-based, as gcc prints them.
 */
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "pathname.h"
#include "version.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"

static const char *severity(const struct finding *f)
{
	return f->note ? "note" : "warning";
}

static guint count_files(GPtrArray *findings, bool notes)
{
	GHashTable *files = g_hash_table_new(g_str_hash, g_str_equal);
	guint n;

	for (guint i = 0; i < findings->len; i++) {
		struct finding *f = findings->pdata[i];

		if (f->note == notes)
			g_hash_table_add(files, (gpointer)f->file);
	}
	n = g_hash_table_size(files);
	g_hash_table_destroy(files);
	return n;
}

static guint count_warnings(GPtrArray *findings)
{
	guint n = 0;

	for (guint i = 0; i < findings->len; i++)
		if (!((struct finding *)findings->pdata[i])->note)
			n++;
	return n;
}

static void print_summary(FILE *out, GPtrArray *findings, guint scanned)
{
	guint warnings = count_warnings(findings);
	guint notes = findings->len - warnings;

	if (!warnings)
		fprintf(out, "timerconv: no old timer API found (%u files checked)",
			scanned);
	else
		fprintf(out, "timerconv: %u finding%s in %u file%s (%u files checked)",
			warnings, warnings == 1 ? "" : "s",
			count_files(findings, false),
			count_files(findings, false) == 1 ? "" : "s", scanned);
	if (notes)
		fprintf(out, ", %u compat note%s", notes, notes == 1 ? "" : "s");
	fputc('\n', out);
}

static void print_text(GPtrArray *findings, guint scanned)
{
	for (guint i = 0; i < findings->len; i++) {
		struct finding *f = findings->pdata[i];

		printf("%s:%u:%u: %s: %s", f->file, f->site->line,
		       f->site->col + 1, severity(f), f->message);
		if (f->note && f->site->compat_why)
			printf(" (%s)", f->site->compat_why);
		printf(" [%s]\n", f->kind);
	}
	print_summary(stdout, findings, scanned);
}

/* A string of the C text or a file name: JSON must be UTF-8. */
static void add_text(JsonBuilder *b, const char *s)
{
	char *u = text_utf8(s);

	json_builder_add_string_value(b, u);
	g_free(u);
}

static void finding_members(JsonBuilder *b, const struct finding *f)
{
	json_builder_set_member_name(b, "file");
	add_text(b, f->file);
	json_builder_set_member_name(b, "line");
	json_builder_add_int_value(b, f->site->line);
	json_builder_set_member_name(b, "column");
	json_builder_add_int_value(b, f->site->col + 1);
	json_builder_set_member_name(b, "end_line");
	json_builder_add_int_value(b, f->site->end_line);
	json_builder_set_member_name(b, "severity");
	json_builder_add_string_value(b, severity(f));
	json_builder_set_member_name(b, "kind");
	json_builder_add_string_value(b, f->kind);
	json_builder_set_member_name(b, "message");
	add_text(b, f->message);
	json_builder_set_member_name(b, "function");
	if (f->site->func)
		add_text(b, f->site->func);
	else
		json_builder_add_null_value(b);
	json_builder_set_member_name(b, "text");
	add_text(b, f->site->text);
	json_builder_set_member_name(b, "fingerprint");
	json_builder_add_string_value(b, f->fingerprint);
	if (f->note) {
		json_builder_set_member_name(b, "compat");
		add_text(b, f->site->compat_why);
	}
}

static void emit(JsonBuilder *b)
{
	JsonGenerator *gen = json_generator_new();
	JsonNode *root = json_builder_get_root(b);
	char *text;

	json_generator_set_root(gen, root);
	json_generator_set_pretty(gen, TRUE);
	json_generator_set_indent(gen, 2);
	text = json_generator_to_data(gen, NULL);
	puts(text);
	g_free(text);
	json_node_unref(root);
	g_object_unref(gen);
}

static void print_json(GPtrArray *findings)
{
	JsonBuilder *b = json_builder_new();

	json_builder_begin_array(b);
	for (guint i = 0; i < findings->len; i++) {
		json_builder_begin_object(b);
		finding_members(b, findings->pdata[i]);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	emit(b);
	g_object_unref(b);
}

/*
 * What a rule is about, the same whichever finding comes first: the
 * message of a callback's finding names the callback, the others' name
 * only the API and the target.
 */
static const char *rule_text(const struct finding *f)
{
	if (f->site->type == SITE_ULONG_CALLBACK)
		return "timer callback takes unsigned long; since v4.15 callbacks take struct timer_list *";
	return f->message;
}

static void sarif_rules(JsonBuilder *b, GPtrArray *findings)
{
	GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);

	json_builder_set_member_name(b, "rules");
	json_builder_begin_array(b);
	for (guint i = 0; i < findings->len; i++) {
		struct finding *f = findings->pdata[i];

		if (g_hash_table_contains(seen, f->kind))
			continue;
		g_hash_table_add(seen, f->kind);
		json_builder_begin_object(b);
		json_builder_set_member_name(b, "id");
		json_builder_add_string_value(b, f->kind);
		json_builder_set_member_name(b, "shortDescription");
		json_builder_begin_object(b);
		json_builder_set_member_name(b, "text");
		add_text(b, rule_text(f));
		json_builder_end_object(b);
		json_builder_end_object(b);
	}
	json_builder_end_array(b);
	g_hash_table_destroy(seen);
}

static void sarif_result(JsonBuilder *b, const struct finding *f)
{
	char *uri;

	json_builder_begin_object(b);
	json_builder_set_member_name(b, "ruleId");
	json_builder_add_string_value(b, f->kind);
	json_builder_set_member_name(b, "level");
	json_builder_add_string_value(b, severity(f));
	json_builder_set_member_name(b, "message");
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "text");
	add_text(b, f->message);
	json_builder_end_object(b);
	json_builder_set_member_name(b, "locations");
	json_builder_begin_array(b);
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "physicalLocation");
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "artifactLocation");
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "uri");
	uri = path_uri(f->file);
	json_builder_add_string_value(b, uri);
	g_free(uri);
	json_builder_set_member_name(b, "uriBaseId");
	json_builder_add_string_value(b, "SRCROOT");
	json_builder_end_object(b);
	json_builder_set_member_name(b, "region");
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "startLine");
	json_builder_add_int_value(b, f->site->line);
	json_builder_set_member_name(b, "startColumn");
	json_builder_add_int_value(b, f->site->col + 1);
	json_builder_end_object(b);
	json_builder_end_object(b);
	json_builder_end_object(b);
	json_builder_end_array(b);
	json_builder_set_member_name(b, "partialFingerprints");
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "timerconv/v1");
	json_builder_add_string_value(b, f->fingerprint);
	json_builder_end_object(b);
	json_builder_end_object(b);
}

static void print_sarif(GPtrArray *findings)
{
	JsonBuilder *b = json_builder_new();

	json_builder_begin_object(b);
	json_builder_set_member_name(b, "$schema");
	json_builder_add_string_value(b, SARIF_SCHEMA);
	json_builder_set_member_name(b, "version");
	json_builder_add_string_value(b, "2.1.0");
	json_builder_set_member_name(b, "runs");
	json_builder_begin_array(b);
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "tool");
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "driver");
	json_builder_begin_object(b);
	json_builder_set_member_name(b, "name");
	json_builder_add_string_value(b, "timerconv");
	json_builder_set_member_name(b, "version");
	json_builder_add_string_value(b, TIMERCONV_VERSION);
	json_builder_set_member_name(b, "informationUri");
	json_builder_add_string_value(b, TIMERCONV_URL);
	sarif_rules(b, findings);
	json_builder_end_object(b);
	json_builder_end_object(b);
	json_builder_set_member_name(b, "results");
	json_builder_begin_array(b);
	for (guint i = 0; i < findings->len; i++)
		sarif_result(b, findings->pdata[i]);
	json_builder_end_array(b);
	json_builder_end_object(b);
	json_builder_end_array(b);
	json_builder_end_object(b);
	emit(b);
	g_object_unref(b);
}

/* Workflow commands need %, CR, LF (and in properties : and ,) escaped. */
static char *gh_escape(const char *s, bool property)
{
	GString *out = g_string_new(NULL);

	for (; *s; s++) {
		if (*s == '%')
			g_string_append(out, "%25");
		else if (*s == '\r')
			g_string_append(out, "%0D");
		else if (*s == '\n')
			g_string_append(out, "%0A");
		else if (property && *s == ':')
			g_string_append(out, "%3A");
		else if (property && *s == ',')
			g_string_append(out, "%2C");
		else
			g_string_append_c(out, *s);
	}
	return g_string_free(out, FALSE);
}

static void print_github(GPtrArray *findings, guint scanned)
{
	for (guint i = 0; i < findings->len; i++) {
		struct finding *f = findings->pdata[i];
		char *file = gh_escape(f->file, true);
		char *title = gh_escape(f->kind, true);
		char *msg = gh_escape(f->message, false);

		printf("::%s file=%s,line=%u,col=%u,title=%s::%s\n",
		       f->note ? "notice" : "warning", file, f->site->line,
		       f->site->col + 1, title, msg);
		g_free(file);
		g_free(title);
		g_free(msg);
	}
	print_summary(stderr, findings, scanned);
}

void check_print(GPtrArray *findings, enum check_format fmt,
		 guint nfiles_scanned)
{
	switch (fmt) {
	case FORMAT_TEXT:
		print_text(findings, nfiles_scanned);
		break;
	case FORMAT_JSON:
		print_json(findings);
		print_summary(stderr, findings, nfiles_scanned);
		break;
	case FORMAT_SARIF:
		print_sarif(findings);
		print_summary(stderr, findings, nfiles_scanned);
		break;
	case FORMAT_GITHUB:
		print_github(findings, nfiles_scanned);
		break;
	}
	fflush(stdout);
}
