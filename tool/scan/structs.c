// SPDX-License-Identifier: GPL-2.0
/*
 * Struct definitions, read with the lexer.  Declarations inside a body
 * are split at top-level semicolons and commas; each declarator's name,
 * pointer depth and array-ness is kept with the type written before it.
 * Both branches of an #ifdef inside a body count (their tokens are all
 * there); macros used as members (DECLARE_BITMAP(...)) are skipped.
 */
#include <string.h>

#include "lexer.h"
#include "structs_priv.h"
#include "treescan.h"

static const char *const qualifiers[] = {
	"const", "volatile", "__rcu", "__iomem", "__percpu", "__user",
	"__force", "__packed", "__randomize_layout", "____cacheline_aligned",
	"____cacheline_aligned_in_smp", "__cacheline_aligned",
	"__cacheline_aligned_in_smp", "static", "extern", "register",
	"__attribute__", "__aligned", "__attribute", "__may_be_unused",
	"__maybe_unused", "__private", "__counted_by", NULL
};

static bool is_qualifier(const struct token *t)
{
	return tok_in(t, qualifiers);
}

void free_member(gpointer p)
{
	struct member *m = p;

	g_free(m->name);
	ctype_clear(&m->type);
	g_free(m);
}

void free_sdef(gpointer p)
{
	struct sdef *d = p;

	g_free(d->tag);
	g_free(d->file);
	g_ptr_array_free(d->members, TRUE);
	g_free(d);
}

void free_defs(gpointer p)
{
	g_ptr_array_free(p, TRUE);
}

void free_tdef(gpointer p)
{
	struct tdef *t = p;

	g_free(t->file);
	g_free(t->value);
	g_free(t);
}

struct struct_index *structs_new(void)
{
	struct struct_index *si = g_new0(struct struct_index, 1);

	g_mutex_init(&si->lock);
	si->defs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					 free_defs);
	si->typedefs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					     free_defs);
	si->includes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					     free_defs);
	si->inc_dirs = g_ptr_array_new_with_free_func(g_free);
	g_ptr_array_add(si->inc_dirs, g_strdup("include"));
	si->closures = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
		(GDestroyNotify)g_hash_table_destroy);
	return si;
}

void structs_free(struct struct_index *si)
{
	if (!si)
		return;
	g_hash_table_destroy(si->defs);
	g_hash_table_destroy(si->typedefs);
	g_hash_table_destroy(si->includes);
	g_ptr_array_free(si->inc_dirs, TRUE);
	g_hash_table_destroy(si->closures);
	g_mutex_clear(&si->lock);
	g_free(si);
}

void ctype_clear(struct ctype *t)
{
	g_free(t->tag);
	g_free(t->text);
	memset(t, 0, sizeof(*t));
}

/* Parser state for one file. */
struct sparser {
	struct struct_index *si;
	const char *path;
	const struct token *t;
	size_t n;
	GPtrArray *found;	/* struct sdef * to publish */
	GPtrArray *typedefs;	/* pairs name, tag */
	guint anon;
};

static size_t skip_pp(const struct sparser *sp, size_t i, size_t end)
{
	while (i < end && (sp->t[i].flags & TF_PP))
		i++;
	return i;
}

static size_t body_parse(struct sparser *sp, size_t open, struct sdef *def);

/* The type written in t[from, to): "struct x", "unsigned long", "u32". */
static char *type_name(const struct sparser *sp, size_t from, size_t to)
{
	GString *s = g_string_new(NULL);

	for (size_t i = from; i < to; i++) {
		const struct token *tok = &sp->t[i];

		if (tok->flags & TF_PP || is_qualifier(tok))
			continue;
		if (tok->kind != TOK_IDENT)
			break;
		if (s->len)
			g_string_append_c(s, ' ');
		g_string_append_len(s, tok->p, tok->len);
	}
	return g_string_free(s, FALSE);
}

static void add_member(struct sdef *def, const char *name, const char *tag,
		       int ptr, bool array, const char *type_text)
{
	struct member *m = g_new0(struct member, 1);

	m->name = g_strdup(name);
	m->type.tag = g_strdup(tag);
	m->type.ptr = ptr;
	m->type.array = array;
	if (ptr)
		m->type.text = g_strdup_printf("%s %.*s", type_text, ptr,
					       "********");
	else
		m->type.text = g_strdup(type_text);
	g_ptr_array_add(def->members, m);
}

/*
 * One declarator in t[from, to): `*name[4]`, `name : 3`, `(*fn)(...)`.
 * Returns false if it is not one we understand.
 */
static bool declarator(const struct sparser *sp, size_t from, size_t to,
		       char **name, int *ptr, bool *array)
{
	const struct token *t = sp->t;
	size_t end = to;

	*ptr = 0;
	*array = false;
	for (size_t i = from; i < to; i++) {
		/* function pointer: ( * name ) ( ... ) */
		if (tok_punct(&t[i], '(') && i + 2 < to &&
		    tok_punct(&t[i + 1], '*') && t[i + 2].kind == TOK_IDENT) {
			*name = g_strndup(t[i + 2].p, t[i + 2].len);
			*ptr = 1;
			return true;
		}
		if (tok_punct(&t[i], ':')) {
			end = i;
			break;
		}
	}
	while (end > from && tok_punct(&t[end - 1], ']')) {
		size_t j = tok_match_open(t, from + 1, end - 1);

		end = j == SIZE_MAX ? from : j;
		*array = true;
	}
	while (end > from && (t[end - 1].flags & TF_PP))
		end--;
	/* __aligned(8) and similar after the name */
	while (end > from + 1 && tok_punct(&t[end - 1], ')')) {
		size_t j = tok_match_open(t, from + 1, end - 1);

		if (j == SIZE_MAX || t[j - 1].kind != TOK_IDENT)
			return false;
		end = j - 1;
	}
	while (end > from && is_qualifier(&t[end - 1]))
		end--;
	if (end == from || t[end - 1].kind != TOK_IDENT)
		return false;
	*name = g_strndup(t[end - 1].p, t[end - 1].len);
	for (size_t i = from; i + 1 < end; i++)
		if (tok_punct(&t[i], '*'))
			(*ptr)++;
	return true;
}

/* Split t[from, to) at top-level commas. */
static GArray *split_commas(const struct token *t, size_t from, size_t to)
{
	GArray *cuts = g_array_new(FALSE, FALSE, sizeof(size_t));
	int depth = 0;

	g_array_append_val(cuts, from);
	for (size_t i = from; i < to; i++) {
		if (t[i].kind != TOK_PUNCT || t[i].len != 1)
			continue;
		if (strchr("([{", t[i].p[0])) {
			depth++;
		} else if (strchr(")]}", t[i].p[0])) {
			depth--;
		} else if (t[i].p[0] == ',' && depth == 0) {
			size_t next = i + 1;

			g_array_append_val(cuts, i);
			g_array_append_val(cuts, next);
		}
	}
	g_array_append_val(cuts, to);
	return cuts;
}

static struct sdef *new_sdef(struct sparser *sp, const char *tag,
			     unsigned int line)
{
	struct sdef *d = g_new0(struct sdef, 1);

	d->tag = g_strdup(tag);
	d->file = g_strdup(sp->path);
	d->line = line;
	d->members = g_ptr_array_new_with_free_func(free_member);
	return d;
}

/* Members of an anonymous struct/union member go into the parent. */
static void inline_members(struct sdef *into, struct sdef *from)
{
	for (guint i = 0; i < from->members->len; i++) {
		struct member *m = from->members->pdata[i];

		add_member(into, m->name, m->type.tag, m->type.ptr,
			   m->type.array, m->type.text);
	}
}

/* The declarators of t[from, to) share the type written before them. */
static void declarators(struct sparser *sp, struct sdef *def, size_t from,
			size_t to, const char *tag, const char *text)
{
	GArray *cuts = split_commas(sp->t, from, to);

	for (guint k = 0; k + 1 < cuts->len; k += 2) {
		size_t a = g_array_index(cuts, size_t, k);
		size_t b = g_array_index(cuts, size_t, k + 1);
		char *name = NULL;
		int ptr;
		bool array;

		if (declarator(sp, a, b, &name, &ptr, &array))
			add_member(def, name, tag, ptr, array, text);
		g_free(name);
	}
	g_array_free(cuts, TRUE);
}

/* struct/union at t[i]: an inline definition or a tag.  Returns the index
 * after the type, and the tag in *tag. */
static size_t aggregate_type(struct sparser *sp, size_t i, size_t end,
			     char **tag, struct sdef **inline_def)
{
	const struct token *t = sp->t;
	char *kw = g_strndup(t[i].p, t[i].len);
	size_t j = skip_pp(sp, i + 1, end);

	*inline_def = NULL;
	while (j < end && is_qualifier(&t[j]))
		j = skip_pp(sp, j + 1, end);
	if (j < end && t[j].kind == TOK_IDENT) {
		*tag = g_strdup_printf("%s %.*s", kw, (int)t[j].len, t[j].p);
		j = skip_pp(sp, j + 1, end);
	} else {
		*tag = g_strdup_printf("%s <anonymous %s:%u#%u>", kw, sp->path,
				       t[i].line, ++sp->anon);
	}
	if (j < end && tok_punct(&t[j], '{')) {
		struct sdef *d = new_sdef(sp, *tag, t[i].line);

		j = body_parse(sp, j, d) + 1;
		*inline_def = d;
	}
	g_free(kw);
	return j;
}

static void declaration(struct sparser *sp, struct sdef *def, size_t from,
			size_t to)
{
	const struct token *t = sp->t;
	size_t i = skip_pp(sp, from, to);
	char *tag = NULL;
	size_t after;

	while (i < to && is_qualifier(&t[i])) {
		i++;
		if (i < to && tok_punct(&t[i], '('))
			i = tok_match_close(t, to, i) + 1;
		i = skip_pp(sp, i, to);
	}
	if (i >= to)
		return;
	if (TOK_IS(&t[i], "struct") || TOK_IS(&t[i], "union") ||
	    TOK_IS(&t[i], "enum")) {
		struct sdef *inl = NULL;

		after = aggregate_type(sp, i, to, &tag, &inl);
		if (inl) {
			g_ptr_array_add(sp->found, inl);
			if (skip_pp(sp, after, to) >= to) {
				inline_members(def, inl);
				g_free(tag);
				return;
			}
		}
		declarators(sp, def, after, to, tag, tag);
		g_free(tag);
		return;
	}
	/* A macro used as a member: DECLARE_BITMAP(x, 4); */
	if (t[i].kind == TOK_IDENT && i + 1 < to && tok_punct(&t[i + 1], '('))
		return;
	/* Type words run up to the declarator: the last name before a *,
	 * [, :, or the end, unless the only name is the declarator. */
	{
		size_t last = i;
		size_t decl_start;

		for (size_t j = i; j < to; j++) {
			if (t[j].kind == TOK_IDENT && !is_qualifier(&t[j]))
				last = j;
			else if (!(t[j].flags & TF_PP) &&
				 !is_qualifier(&t[j]))
				break;
		}
		decl_start = last;
		while (decl_start > i && tok_punct(&t[decl_start - 1], '*'))
			decl_start--;
		if (decl_start == i) {
			/* `u32 *p` lexes as u32 * p: the type is u32 */
			decl_start = i + 1;
		}
		tag = type_name(sp, i, decl_start);
		if (!*tag) {
			g_free(tag);
			return;
		}
		declarators(sp, def, decl_start, to, tag, tag);
		g_free(tag);
	}
}

/* Parse the body opened at t[open] into def; returns its closing brace. */
static size_t body_parse(struct sparser *sp, size_t open, struct sdef *def)
{
	const struct token *t = sp->t;
	size_t close = tok_match_close(t, sp->n, open);
	size_t start = open + 1;
	int depth = 0;

	for (size_t i = open + 1; i < close; i++) {
		if (t[i].flags & TF_PP)
			continue;
		if (tok_punct(&t[i], '{') || tok_punct(&t[i], '(') ||
		    tok_punct(&t[i], '['))
			depth++;
		else if (tok_punct(&t[i], '}') || tok_punct(&t[i], ')') ||
			 tok_punct(&t[i], ']'))
			depth--;
		else if (tok_punct(&t[i], ';') && depth == 0) {
			declaration(sp, def, start, i);
			start = i + 1;
		}
	}
	return close;
}

/* typedef NAME [*]NEW; at t[j] = NAME: kept to resolve chains of them */
static void typedef_alias(struct sparser *sp, size_t j)
{
	const struct token *t = sp->t;
	size_t k = j + 1;
	int ptr = 0;

	while (k < sp->n && tok_punct(&t[k], '*')) {
		ptr++;
		k++;
	}
	if (ptr > 8 || t[k].kind != TOK_IDENT || !tok_punct(&t[k + 1], ';'))
		return;
	g_ptr_array_add(sp->typedefs, g_strndup(t[k].p, t[k].len));
	g_ptr_array_add(sp->typedefs,
			g_strdup_printf("%.*s%s%.*s", (int)t[j].len, t[j].p,
					ptr ? " " : "", ptr, "********"));
}

static void file_parse(struct sparser *sp)
{
	const struct token *t = sp->t;

	for (size_t i = 0; i + 1 < sp->n; i++) {
		bool is_typedef;
		struct sdef *def;
		char *tag;
		size_t j;

		if (t[i].kind != TOK_IDENT || (t[i].flags & TF_PP))
			continue;
		is_typedef = TOK_IS(&t[i], "typedef");
		if (!is_typedef && !TOK_IS(&t[i], "struct") &&
		    !TOK_IS(&t[i], "union"))
			continue;
		j = is_typedef ? i + 1 : i;
		while (j < sp->n && is_qualifier(&t[j]))
			j++;
		/* typedef foo_t *foo_ptr; (foo_t itself a typedef) */
		if (is_typedef && t[j].kind == TOK_IDENT &&
		    !TOK_IS(&t[j], "struct") && !TOK_IS(&t[j], "union")) {
			typedef_alias(sp, j);
			continue;
		}
		if (!TOK_IS(&t[j], "struct") && !TOK_IS(&t[j], "union"))
			continue;
		/* struct foo { ... } or typedef struct [foo] { ... } name; */
		if (!is_typedef && !(t[j + 1].kind == TOK_IDENT &&
				     tok_punct(&t[j + 2], '{'))) {
			continue;
		}
		j = aggregate_type(sp, j, sp->n, &tag, &def);
		if (def)
			g_ptr_array_add(sp->found, def);
		if (is_typedef) {
			/* typedef struct foo name, *name_ptr; */
			size_t k = j;

			for (;;) {
				int ptr = 0;

				while (k < sp->n && tok_punct(&t[k], '*')) {
					ptr++;
					k++;
				}
				/* an unclosed body ends past the EOF token */
				if (k >= sp->n || t[k].kind != TOK_IDENT ||
				    !(tok_punct(&t[k + 1], ';') ||
				      tok_punct(&t[k + 1], ',')))
					break;
				g_ptr_array_add(sp->typedefs,
						g_strndup(t[k].p, t[k].len));
				g_ptr_array_add(sp->typedefs,
					g_strdup_printf("%s%s%.*s", tag,
							ptr ? " " : "", ptr,
							"********"));
				if (!tok_punct(&t[k + 1], ',') || ptr > 8)
					break;
				k += 2;
			}
		}
		g_free(tag);
		if (j > i)
			i = j - 1;
	}
}

void structs_add_include_dir(struct struct_index *si, const char *dir)
{
	g_mutex_lock(&si->lock);
	g_ptr_array_add(si->inc_dirs, g_strdup(dir));
	g_mutex_unlock(&si->lock);
}

void structs_add_file(struct struct_index *si, const char *path,
		      const char *text, size_t len)
{
	struct sparser sp = { .si = si, .path = path };
	struct token *tokens = lex_all(text, len, &sp.n);
	GPtrArray *includes = lex_includes(tokens, sp.n);

	if (!memmem(text, len, "struct", 6) && !memmem(text, len, "union", 5)) {
		g_free(tokens);
		g_mutex_lock(&si->lock);
		g_hash_table_replace(si->includes, g_strdup(path), includes);
		g_mutex_unlock(&si->lock);
		return;
	}
	sp.t = tokens;
	sp.found = g_ptr_array_new();
	sp.typedefs = g_ptr_array_new();
	file_parse(&sp);
	g_free(tokens);

	g_mutex_lock(&si->lock);
	g_hash_table_replace(si->includes, g_strdup(path), includes);
	for (guint i = 0; i < sp.found->len; i++) {
		struct sdef *d = sp.found->pdata[i];
		GPtrArray *list = g_hash_table_lookup(si->defs, d->tag);

		if (!list) {
			list = g_ptr_array_new_with_free_func(free_sdef);
			g_hash_table_insert(si->defs, g_strdup(d->tag), list);
		}
		g_ptr_array_add(list, d);
	}
	for (guint i = 0; i + 1 < sp.typedefs->len; i += 2) {
		char *name = sp.typedefs->pdata[i];
		GPtrArray *list = g_hash_table_lookup(si->typedefs, name);
		struct tdef *t = g_new0(struct tdef, 1);

		if (!list) {
			list = g_ptr_array_new_with_free_func(free_tdef);
			g_hash_table_insert(si->typedefs, name, list);
		} else {
			g_free(name);
		}
		t->file = g_strdup(path);
		t->value = sp.typedefs->pdata[i + 1];
		g_ptr_array_add(list, t);
	}
	g_mutex_unlock(&si->lock);
	g_ptr_array_free(sp.found, TRUE);
	g_ptr_array_free(sp.typedefs, TRUE);
}

/* Where an #include of `spec` in `file` leads, among indexed files. */
static char *include_target(struct struct_index *si, const char *file,
			    const char *spec)
{
	size_t n = strlen(spec);
	char *name, *found = NULL;

	if (n < 3)
		return NULL;
	name = g_strndup(spec + 1, n - 2);
	if (spec[0] == '"') {
		char *dir = g_path_get_dirname(file);
		char *joined = g_build_filename(dir, name, NULL);

		found = path_normalize(joined);
		g_free(dir);
		g_free(joined);
		if (!g_hash_table_contains(si->includes, found))
			g_clear_pointer(&found, g_free);
	}
	for (guint i = 0; !found && i < si->inc_dirs->len; i++) {
		char *joined = g_build_filename(si->inc_dirs->pdata[i], name,
						NULL);

		found = path_normalize(joined);
		g_free(joined);
		if (!g_hash_table_contains(si->includes, found))
			g_clear_pointer(&found, g_free);
	}
	g_free(name);
	return found;
}

#define MAX_CLOSURE 4000

/* The file and everything it includes, transitively (lock held). */
static GHashTable *closure(struct struct_index *si, const char *file)
{
	GHashTable *seen = g_hash_table_lookup(si->closures, file);
	GQueue queue = G_QUEUE_INIT;

	if (seen)
		return seen;
	seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_hash_table_add(seen, g_strdup(file));
	g_queue_push_tail(&queue, g_strdup(file));
	while (!g_queue_is_empty(&queue) &&
	       g_hash_table_size(seen) < MAX_CLOSURE) {
		char *f = g_queue_pop_head(&queue);
		GPtrArray *incs = g_hash_table_lookup(si->includes, f);

		for (guint i = 0; incs && i < incs->len; i++) {
			char *to = include_target(si, f, incs->pdata[i]);

			if (!to || g_hash_table_contains(seen, to)) {
				g_free(to);
				continue;
			}
			g_hash_table_add(seen, g_strdup(to));
			g_queue_push_tail(&queue, to);
		}
		g_free(f);
	}
	g_queue_clear_full(&queue, g_free);
	g_hash_table_insert(si->closures, g_strdup(file), seen);
	return seen;
}

/*
 * The typedef `name` as `file` sees it: the one its includes define, or
 * the only meaning the tree gives it (lock held).
 */
static const char *typedef_value(struct struct_index *si, const char *name,
				 const char *file)
{
	GPtrArray *list = g_hash_table_lookup(si->typedefs, name);
	GHashTable *visible = file ? closure(si, file) : NULL;
	const char *value = NULL;
	bool ambiguous = false;

	if (!list)
		return NULL;
	for (int pass = 0; pass < 2 && !value; pass++) {
		ambiguous = false;
		for (guint i = 0; i < list->len; i++) {
			struct tdef *t = list->pdata[i];

			if (pass == 0 && (!visible ||
					  !g_hash_table_contains(visible,
								 t->file)))
				continue;
			if (value && strcmp(value, t->value))
				ambiguous = true;
			value = t->value;
		}
		if (ambiguous)
			return NULL;
	}
	return value;
}

bool ctype_parse_in(struct struct_index *si, const char *text,
		    const char *file, struct ctype *out)
{
	char **words = g_strsplit_set(text, " \t*", -1);
	GString *tag = g_string_new(NULL);
	const char *resolved;

	memset(out, 0, sizeof(*out));
	for (const char *p = text; *p; p++)
		if (*p == '*')
			out->ptr++;
	for (int i = 0; words[i]; i++) {
		if (!words[i][0] || !strcmp(words[i], "const") ||
		    !strcmp(words[i], "volatile") ||
		    !strcmp(words[i], "__iomem") || !strcmp(words[i], "__rcu"))
			continue;
		if (tag->len)
			g_string_append_c(tag, ' ');
		g_string_append(tag, words[i]);
	}
	g_strfreev(words);
	out->text = g_strdup(text);
	if (si) {
		/* typedef struct foo *foo_ptr; typedef foo_ptr bar; */
		g_mutex_lock(&si->lock);
		for (int depth = 0; depth < 4; depth++) {
			const char *star;

			resolved = typedef_value(si, tag->str, file);
			if (!resolved)
				break;
			star = strchr(resolved, '*');
			g_string_assign(tag, resolved);
			if (star) {
				out->ptr += (int)strspn(star, "*");
				g_string_truncate(tag, star - resolved);
				while (tag->len &&
				       tag->str[tag->len - 1] == ' ')
					g_string_truncate(tag, tag->len - 1);
			}
		}
		g_mutex_unlock(&si->lock);
	}
	out->tag = g_string_free(tag, FALSE);
	return out->tag[0] != '\0';
}

bool ctype_parse(struct struct_index *si, const char *text,
		 struct ctype *out)
{
	return ctype_parse_in(si, text, NULL, out);
}

bool ctype_same_object(const struct ctype *a, const struct ctype *b)
{
	return a->tag && b->tag && !strcmp(a->tag, b->tag) &&
	       a->ptr == b->ptr;
}

static bool same_type(const struct member *a, const struct member *b)
{
	return !strcmp(a->type.tag, b->type.tag) &&
	       a->type.ptr == b->type.ptr && a->type.array == b->type.array;
}

static const struct member *find_in(const struct sdef *d, const char *name)
{
	for (guint i = 0; i < d->members->len; i++) {
		const struct member *m = d->members->pdata[i];

		if (!strcmp(m->name, name))
			return m;
	}
	return NULL;
}

const struct member *structs_member_amb(struct struct_index *si,
					const char *tag, const char *name,
					const char *prefer_file,
					bool *ambiguous)
{
	GPtrArray *list;
	GHashTable *visible = NULL;
	const struct member *found = NULL;
	bool any_visible = false, some_lack = false, differ = false;

	if (ambiguous)
		*ambiguous = false;
	g_mutex_lock(&si->lock);
	list = g_hash_table_lookup(si->defs, tag);
	if (!list) {
		g_mutex_unlock(&si->lock);
		return NULL;
	}
	/* A tag defined by several drivers: the definition the file sees
	 * through its includes (its own first), else all must agree. */
	if (prefer_file)
		visible = closure(si, prefer_file);
	for (guint i = 0; visible && i < list->len; i++) {
		const struct sdef *d = list->pdata[i];

		any_visible |= g_hash_table_contains(visible, d->file);
	}
	for (guint i = 0; i < list->len; i++) {
		const struct sdef *d = list->pdata[i];
		const struct member *m;

		if (any_visible && !g_hash_table_contains(visible, d->file))
			continue;
		m = find_in(d, name);
		if (!m)
			some_lack = true;
		else if (found && !same_type(found, m))
			differ = true;
		else
			found = m;
	}
	g_mutex_unlock(&si->lock);
	if (found && (some_lack || differ)) {
		/* several definitions, the file's own not among them, and
		 * they disagree: nothing can be said */
		if (ambiguous)
			*ambiguous = true;
		return NULL;
	}
	return found;
}

const char *structs_def_file(struct struct_index *si, const char *tag,
			     const char *file)
{
	GPtrArray *list;
	GHashTable *visible;
	const char *found = NULL;
	guint n = 0;

	g_mutex_lock(&si->lock);
	list = g_hash_table_lookup(si->defs, tag);
	visible = list ? closure(si, file) : NULL;
	for (guint i = 0; list && i < list->len; i++) {
		const struct sdef *d = list->pdata[i];

		if (g_hash_table_contains(visible, d->file)) {
			found = d->file;
			n++;
		}
	}
	g_mutex_unlock(&si->lock);
	return n == 1 ? found : NULL;
}

const struct member *structs_member(struct struct_index *si, const char *tag,
				    const char *name, const char *prefer_file)
{
	return structs_member_amb(si, tag, name, prefer_file, NULL);
}

bool structs_known(struct struct_index *si, const char *tag)
{
	bool known;

	g_mutex_lock(&si->lock);
	known = g_hash_table_contains(si->defs, tag);
	g_mutex_unlock(&si->lock);
	return known;
}
