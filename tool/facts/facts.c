// SPDX-License-Identifier: GPL-2.0
/*
 * Parse the facts pass's output: lines "TIMERCONV {json}" on spatch's
 * stdout (anything else there is ignored).
 */
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"

#define MARK "TIMERCONV "

/* The string at key, or NULL when it is missing or not a string. */
static const char *str_ref(JsonObject *o, const char *key)
{
	JsonNode *n = json_object_get_member(o, key);

	if (!n || !JSON_NODE_HOLDS_VALUE(n) ||
	    json_node_get_value_type(n) != G_TYPE_STRING)
		return NULL;
	return json_node_get_string(n);
}

static char *str(JsonObject *o, const char *key)
{
	return g_strdup(str_ref(o, key));
}

/* The object at key, or NULL when it is missing or not an object. */
static JsonObject *obj_ref(JsonObject *o, const char *key)
{
	JsonNode *n = json_object_get_member(o, key);

	return n && JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

static unsigned int num(JsonObject *o, const char *key)
{
	JsonNode *n = json_object_get_member(o, key);

	if (!n || !JSON_NODE_HOLDS_VALUE(n))
		return 0;
	if (json_node_get_value_type(n) == G_TYPE_STRING)
		return (unsigned int)strtoul(json_node_get_string(n), NULL, 10);
	return (unsigned int)json_node_get_int(n);
}

static bool flag(JsonObject *o, const char *key, bool def)
{
	JsonNode *n = json_object_get_member(o, key);

	if (!n || !JSON_NODE_HOLDS_VALUE(n) ||
	    json_node_get_value_type(n) != G_TYPE_BOOLEAN)
		return def;
	return json_node_get_boolean(n);
}

static bool kind_is(JsonObject *o, const char *kind)
{
	char *k = str(o, "kind");
	bool res = k && !strcmp(k, kind);

	g_free(k);
	return res;
}

static struct fpos pos(JsonObject *o)
{
	struct fpos p = { num(o, "line"), num(o, "col") };

	return p;
}

/* "line:col" */
static struct fpos key_pos(JsonObject *o, const char *key)
{
	char *s = str(o, key);
	struct fpos p = { 0, 0 };
	char *colon;

	if (!s)
		return p;
	colon = strchr(s, ':');
	p.line = (unsigned int)strtoul(s, NULL, 10);
	if (colon)
		p.col = (unsigned int)strtoul(colon + 1, NULL, 10);
	g_free(s);
	return p;
}

static void free_setup(gpointer p)
{
	struct f_setup *s = p;

	g_free(s->api);
	g_free(s->func);
	g_free(s->timer);
	g_free(s->fn);
	g_free(s->data);
	g_free(s->flags);
	g_free(s->name);
	g_free(s->expires);
	g_free(s);
}

static void free_assign(gpointer p)
{
	struct f_assign *a = p;

	g_free(a->field);
	g_free(a->object);
	g_free(a->timer);
	g_free(a->value);
	g_free(a->func);
	g_free(a);
}

static void free_callback(gpointer p)
{
	struct f_callback *c = p;

	g_free(c->name);
	g_free(c->param);
	g_free(c->ptype);
	g_free(c->ret);
	g_free(c);
}

static void free_cast(gpointer p)
{
	struct f_cast *c = p;

	g_free(c->callback);
	g_free(c->local);
	g_free(c->type);
	g_free(c);
}

static void free_named(gpointer p)
{
	struct f_named *n = p;

	g_free(n->name);
	g_free(n->arg);
	g_free(n->ptype);
	g_free(n->func);
	g_free(n);
}

struct f_setup *facts_setup_at(const struct file_facts *ff, struct fpos at)
{
	for (guint i = 0; i < ff->setups->len; i++) {
		struct f_setup *s = ff->setups->pdata[i];

		if (fpos_eq(s->at, at))
			return s;
	}
	return NULL;
}

static void add_setup(struct file_facts *ff, JsonObject *o,
		      enum fsetup_kind kind)
{
	struct f_setup *s = g_new0(struct f_setup, 1);

	s->kind = kind;
	s->api = str(o, "api");
	s->at = pos(o);
	s->func = str(o, "func");
	s->timer = str(o, "timer");
	s->fn = str(o, "fn");
	s->fn_at.line = num(o, "fn_line");
	s->fn_at.col = num(o, "fn_col");
	s->data = str(o, "data");
	s->flags = str(o, "flags");
	s->name = str(o, "name");
	s->expires = str(o, "expires");
	g_ptr_array_add(ff->setups, s);
}

/*
 * The fields each kind of record always has, as the rules print them
 * (the .cocci files): a record without one of them is not the rules' and
 * is dropped here, so nothing downstream meets a NULL name or timer.
 */
static bool complete(JsonObject *o, const char *kind)
{
	static const char *const need[][6] = {
		{ "setup", "func", "api", "timer", "fn", "data" },
		{ "init", "func", "api", "timer" },
		{ "define", "func", "api", "fn" },
		{ "init_pair", "fn", "fn_at" },
		{ "assign", "func", "field", "object", "value" },
		{ "read", "func", "field", "object" },
		{ "callback", "func", "name", "param" },
		{ "cast", "callback", "local", "type" },
		{ "icast", "callback", "type" },
		{ "proto", "name" },
		{ "call", "func", "name", "arg" },
		{ "rename", "func", "name", "args" },
		{ "done", "section", "name" },
	};

	for (size_t i = 0; i < G_N_ELEMENTS(need); i++) {
		if (strcmp(need[i][0], kind))
			continue;
		for (size_t k = 1; k < G_N_ELEMENTS(need[i]) && need[i][k];
		     k++)
			if (!str_ref(o, need[i][k]))
				return false;
	}
	return true;
}

/* Pair an init_timer() with its .function assignment. */
static void add_init_pair(struct file_facts *ff, JsonObject *o)
{
	struct f_setup *s = facts_setup_at(ff, pos(o));

	if (!s || s->kind != FS_INIT || s->paired || !complete(o, "init_pair"))
		return;
	s->paired = true;
	g_free(s->fn);
	s->fn = str(o, "fn");
	s->fn_at = key_pos(o, "fn_at");
}

static void add_record(struct file_facts *ff, JsonObject *o)
{
	const char *kind = str_ref(o, "kind");

	ff->records++;
	if (!kind || !complete(o, kind))
		return;
	if (!strcmp(kind, "setup")) {
		add_setup(ff, o, FS_SETUP);
	} else if (!strcmp(kind, "init")) {
		add_setup(ff, o, FS_INIT);
	} else if (!strcmp(kind, "define")) {
		add_setup(ff, o, FS_DEFINE);
	} else if (!strcmp(kind, "assign") || !strcmp(kind, "read")) {
		struct f_assign *a = g_new0(struct f_assign, 1);
		bool read = kind[0] == 'r';

		a->field = str(o, "field");
		a->object = str(o, "object");
		a->timer = str(o, "timer");
		if (!a->timer && a->object)
			a->timer = g_strdup_printf("& %s", a->object);
		a->value = str(o, "value");
		a->at = pos(o);
		a->value_at = key_pos(o, "value_at");
		a->func = str(o, "func");
		if (read && g_strcmp0(a->field, "data") &&
		    g_strcmp0(a->field, "function")) {
			free_assign(a);
			return;
		}
		g_ptr_array_add(read ? ff->reads : ff->assigns, a);
	} else if (!strcmp(kind, "callback")) {
		struct f_callback *c = g_new0(struct f_callback, 1);
		JsonObject *ext = obj_ref(o, "extent");

		c->name = str(o, "name");
		c->param = str(o, "param");
		c->ptype = str(o, "ptype");
		c->ret = str(o, "ret");
		c->at = pos(o);
		if (ext) {
			c->first = num(ext, "first");
			c->last = num(ext, "last");
		}
		g_ptr_array_add(ff->callbacks, c);
	} else if (!strcmp(kind, "cast")) {
		struct f_cast *c = g_new0(struct f_cast, 1);
		char *form = str(o, "form");

		c->callback = str(o, "callback");
		c->local = str(o, "local");
		c->type = str(o, "type");
		c->assign = form && !strcmp(form, "assign");
		c->local_at = key_pos(o, "local_at");
		c->data_at = key_pos(o, "data_at");
		g_free(form);
		g_ptr_array_add(ff->casts, c);
	} else if (!strcmp(kind, "icast")) {
		struct f_cast *c = g_new0(struct f_cast, 1);

		c->callback = str(o, "callback");
		c->type = str(o, "type");
		c->data_at = key_pos(o, "data_at");
		g_ptr_array_add(ff->icasts, c);
	} else if (!strcmp(kind, "proto") || !strcmp(kind, "call") ||
		   !strcmp(kind, "ref") || !strcmp(kind, "rename")) {
		struct f_named *n = g_new0(struct f_named, 1);
		bool rename = !strcmp(kind, "rename");

		n->name = str(o, "name");
		n->arg = str(o, rename ? "args" : "arg");
		n->func = str(o, "func");
		n->ptype = str(o, "ptype");
		n->named = flag(o, "named", true);
		n->at = pos(o);
		g_ptr_array_add(rename ? ff->renames :
				kind[0] == 'p' ? ff->protos :
				kind[0] == 'c' ? ff->calls : ff->refs, n);
	} else if (!strcmp(kind, "type")) {
		char *func = str(o, "func");
		char *name = str(o, "name");
		char *type = str(o, "type");

		if (name && type)
			g_hash_table_insert(ff->types,
				g_strdup_printf("%s\n%s", func ? func : "",
						name), type);
		else
			g_free(type);
		g_free(func);
		g_free(name);
	} else if (!strcmp(kind, "done")) {
		char *section = str(o, "section");
		char *name = str(o, "name");

		g_hash_table_add(ff->done, g_strdup_printf("%s\n%s", section,
							   name));
		g_free(section);
		g_free(name);
	}
}

static struct file_facts *facts_new(void)
{
	struct file_facts *ff = g_new0(struct file_facts, 1);

	ff->setups = g_ptr_array_new_with_free_func(free_setup);
	ff->assigns = g_ptr_array_new_with_free_func(free_assign);
	ff->reads = g_ptr_array_new_with_free_func(free_assign);
	ff->callbacks = g_ptr_array_new_with_free_func(free_callback);
	ff->casts = g_ptr_array_new_with_free_func(free_cast);
	ff->icasts = g_ptr_array_new_with_free_func(free_cast);
	ff->protos = g_ptr_array_new_with_free_func(free_named);
	ff->calls = g_ptr_array_new_with_free_func(free_named);
	ff->refs = g_ptr_array_new_with_free_func(free_named);
	ff->renames = g_ptr_array_new_with_free_func(free_named);
	ff->types = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					  g_free);
	ff->done = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					 NULL);
	return ff;
}

struct pending_pair {
	struct file_facts *ff;
	JsonObject *o;
};

/*
 * Every record of the output, into the facts of the file it names (all
 * into one when by_file is NULL).
 */
static void parse_into(const char *text, GHashTable *by_file,
		       struct file_facts *one)
{
	GArray *pairs = g_array_new(FALSE, FALSE, sizeof(struct pending_pair));
	JsonParser *parser = json_parser_new();
	const char *line = text;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (len > strlen(MARK) && !strncmp(line, MARK, strlen(MARK)) &&
		    json_parser_load_from_data(parser, line + strlen(MARK),
					       len - strlen(MARK), NULL)) {
			JsonNode *root = json_parser_get_root(parser);
			struct file_facts *ff = one;
			JsonObject *o;

			if (!root || !JSON_NODE_HOLDS_OBJECT(root))
				goto next;
			o = json_node_get_object(root);
			if (by_file) {
				char *file = str(o, "file");

				if (!file)
					file = g_strdup("");
				ff = g_hash_table_lookup(by_file, file);
				if (!ff) {
					ff = facts_new();
					g_hash_table_insert(by_file, file, ff);
				} else {
					g_free(file);
				}
			}
			if (kind_is(o, "init_pair")) {
				/* after every init record: the order of
				 * output is spatch's */
				struct pending_pair pp = {
					ff, json_object_ref(o)
				};

				g_array_append_val(pairs, pp);
			} else {
				add_record(ff, o);
			}
		}
next:
		line = end ? end + 1 : NULL;
	}
	for (guint i = 0; i < pairs->len; i++) {
		struct pending_pair *pp = &g_array_index(pairs,
						struct pending_pair, i);

		add_init_pair(pp->ff, pp->o);
		json_object_unref(pp->o);
	}
	g_array_free(pairs, TRUE);
	g_object_unref(parser);
}

struct file_facts *facts_parse(const char *text)
{
	struct file_facts *ff = facts_new();

	parse_into(text, NULL, ff);
	return ff;
}

GHashTable *facts_parse_files(const char *text)
{
	GHashTable *by_file = g_hash_table_new_full(g_str_hash, g_str_equal,
		g_free, (GDestroyNotify)facts_free);

	parse_into(text, by_file, NULL);
	return by_file;
}

void facts_free(struct file_facts *ff)
{
	if (!ff)
		return;
	g_ptr_array_free(ff->setups, TRUE);
	g_ptr_array_free(ff->assigns, TRUE);
	g_ptr_array_free(ff->reads, TRUE);
	g_ptr_array_free(ff->callbacks, TRUE);
	g_ptr_array_free(ff->casts, TRUE);
	g_ptr_array_free(ff->icasts, TRUE);
	g_ptr_array_free(ff->protos, TRUE);
	g_ptr_array_free(ff->calls, TRUE);
	g_ptr_array_free(ff->refs, TRUE);
	g_ptr_array_free(ff->renames, TRUE);
	g_hash_table_destroy(ff->types);
	g_hash_table_destroy(ff->done);
	g_free(ff);
}

struct file_facts *facts_take_done(struct file_facts *ff)
{
	struct file_facts *done = facts_new();
	GHashTable *t = done->done;

	done->done = ff->done;
	ff->done = t;
	return done;
}

const char *facts_type(const struct file_facts *ff, const char *func,
		       const char *name)
{
	char *key = g_strdup_printf("%s\n%s", func ? func : "", name);
	const char *t = g_hash_table_lookup(ff->types, key);

	g_free(key);
	return t;
}

bool facts_done(const struct file_facts *ff, const char *section,
		const char *name)
{
	char *key = g_strdup_printf("%s\n%s", section, name);
	bool done = g_hash_table_contains(ff->done, key);

	g_free(key);
	return done;
}
