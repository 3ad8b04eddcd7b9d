// SPDX-License-Identifier: GPL-2.0
/*
 * Name resolution from the tokens (names.h).  One pass over the code
 * tokens keeps a stack of brace scopes (file, function body, block,
 * struct or union, enum, initialiser) and, in the scopes made of
 * statements, the start of the current statement.  A wanted identifier
 * whose role its neighbours settle (p->x, struct x, goto x, x:) is
 * settled at once; the others wait for the end of their statement, where
 * the statement is read as a declaration if it is one beyond doubt:
 * declaration specifiers, then declarators, each `name`, `*name`,
 * `name[...]`, `name(params)` or `(*name)(params)`, attributes allowed
 * around them.  A declared name is a member in a struct, a local in a
 * block (its scope the rest of the block), the file's own at file scope
 * when static or a typedef; parameters are locals of the function body.
 *
 * Preprocessor conditionals may open a brace in each branch: the scopes
 * a branch opened are closed at #else and #elif, as the scan does.  A
 * `}` at the start of a line closes every scope but the file's, as
 * kernel style puts one there only at the end of a top-level construct.
 * Whatever is not understood stays ordinary: a use.
 */
#include <stdlib.h>
#include <string.h>

#include "names.h"

enum scope_kind {
	SC_FILE,
	SC_FUNC,	/* a function body: its parameters are locals */
	SC_BLOCK,	/* a compound statement or ({ ... }) */
	SC_STRUCT,	/* struct or union members */
	SC_ENUM,
	SC_INIT,	/* an initialiser, a compound literal, or unknown */
};

#define NONE G_MAXUINT32
/* Past these, a declaration is not read (its names stay ordinary). */
#define MAX_ITEMS 96
#define MAX_DEPTH 4

struct scope {
	guint8 kind;
	bool ends_stmt;		/* a block that ends its parent's statement */
	guint32 open;		/* code index of its '{' */
	guint32 stmt;		/* start of the current statement */
	guint locals;		/* r->locals length at the open */
	guint pending;		/* r->pending length at the open */
	guint parens;		/* r->parens length at the open */
};

/* #if nesting, for the scopes each branch opens. */
struct cond_mark {
	guint scopes;
	guint parens;
	int after_first;	/* scope depth at the end of the first branch */
};

struct pp_event {
	guint32 at;		/* before code index `at` */
	guint8 kind;		/* PP_IF, PP_ELSE, PP_ENDIF */
};

struct resolver {
	const struct token *t;
	guint32 *code;		/* token index of each code token */
	guint32 m;
	guint32 *match;		/* code index of the closing bracket */
	guint8 *cond;		/* the code token is under #if */
	GArray *scopes;		/* struct scope */
	GArray *parens;		/* guint32: code indices of open ( and [ */
	GArray *locals;		/* guint32: token indices of declared names */
	GArray *pending;	/* guint32: code indices awaiting a statement */
	GArray *events;		/* struct pp_event */
	GArray *marks;		/* struct cond_mark */
	GArray *uses;
	GArray *decls;
	name_wanted_fn wanted;
	void *ctx;
};

/* One statement's reading: the names it declares, with their role. */
struct settled {
	guint32 k[32];
	guint8 role[32];
	guint n;
};

static const char *const stmt_words[] = {
	"return", "if", "else", "while", "for", "do", "switch", "case",
	"default", "goto", "break", "continue", "sizeof", "asm", "__asm__",
	"__asm", "_Static_assert", "static_assert", "typeof", "__typeof__",
	"__typeof", "_Alignof", "__alignof__", "offsetof", NULL
};

static const char *const qualifiers[] = {
	"const", "volatile", "restrict", "__restrict", "__restrict__",
	"__const", "__volatile__", "_Atomic", NULL
};

/* Macros whose last argument names a member. */
static const char *const member_macros[] = {
	"offsetof", "offsetofend", "container_of", "container_of_safe",
	"container_of_const", "from_timer", "sizeof_field", "FIELD_SIZEOF",
	"typeof_member", "list_entry", "list_first_entry",
	"list_first_entry_or_null", "list_last_entry", "list_next_entry",
	"list_prev_entry", "list_for_each_entry", "list_for_each_entry_safe",
	"list_for_each_entry_reverse", "list_for_each_entry_continue",
	"list_for_each_entry_from", "list_for_each_entry_rcu",
	"hlist_entry", "hlist_entry_safe", "hlist_for_each_entry",
	"hlist_for_each_entry_safe", "hlist_for_each_entry_rcu", "rb_entry",
	"rb_entry_safe", "llist_entry", "llist_for_each_entry", NULL
};

static inline const struct token *ct(const struct resolver *r, guint32 k)
{
	return &r->t[r->code[k]];
}

static inline bool is_punct(const struct resolver *r, guint32 k, char c)
{
	return k < r->m && tok_punct(ct(r, k), c);
}

static inline bool is_opener(const struct token *tok)
{
	return tok_punct(tok, '(') || tok_punct(tok, '[') ||
	       tok_punct(tok, '{');
}

static bool is_attr(const struct token *tok)
{
	return tok->kind == TOK_IDENT && tok->len > 2 && tok->p[0] == '_' &&
	       tok->p[1] == '_';
}

static bool same_name(const struct token *a, const struct token *b)
{
	return a->len == b->len && !memcmp(a->p, b->p, a->len);
}

static struct scope *top(struct resolver *r)
{
	return &g_array_index(r->scopes, struct scope, r->scopes->len - 1);
}

static guint paren_level(struct resolver *r)
{
	return r->parens->len - top(r)->parens;
}

static void emit(struct resolver *r, guint32 k, enum name_role role)
{
	struct name_use u = { r->code[k], (guint8)role };

	g_array_append_val(r->uses, u);
}

static void emit_decl(struct resolver *r, guint32 k, enum name_decl_kind kind,
		      bool conditional)
{
	struct name_decl d = { r->code[k], (guint8)kind,
			       conditional || r->cond[k] };

	g_array_append_val(r->decls, d);
}

/* A local of that spelling is in scope. */
static bool shadowed(struct resolver *r, guint32 k)
{
	const struct token *tok = ct(r, k);

	for (guint i = r->locals->len; i-- > 0;)
		if (same_name(&r->t[g_array_index(r->locals, guint32, i)],
			      tok))
			return true;
	return false;
}

static void by_scope(struct resolver *r, guint32 k)
{
	emit(r, k, shadowed(r, k) ? NAME_LOCAL : NAME_ORDINARY);
}

/* The code index past the item at k: a bracket group is one item. */
static guint32 item_end(const struct resolver *r, guint32 k, guint32 end)
{
	if (is_opener(ct(r, k))) {
		guint32 c = r->match[k];

		return c == NONE || c >= end ? end : c + 1;
	}
	return k + 1;
}

/* ---- declarations ---- */

struct declarator {
	guint32 name;		/* code index, or NONE */
	guint32 params;		/* its '(' when a function or a pointer to
				 * one, or NONE */
	bool function;		/* name(params): a function, not an object */
	bool is_static;
	bool is_typedef;
};

/* Is item k of a declaration a type keyword or storage class? */
static bool specifier_word(const struct token *tok)
{
	static const char *const words[] = {
		"void", "char", "short", "int", "long", "float", "double",
		"signed", "unsigned", "_Bool", "bool", "_Complex", "struct",
		"union", "enum", "static", "extern", "register", "auto",
		"inline", "typedef", "_Thread_local", "__thread", "__inline",
		"__inline__", "__signed__", "__extension__", NULL
	};

	return tok_in(tok, words) || tok_in(tok, qualifiers);
}

/* (*name), (* const name), (*name[4]): the name, or NONE. */
static guint32 pointer_group(const struct resolver *r, guint32 open)
{
	guint32 close = r->match[open], k = open + 1, name = NONE;

	if (close == NONE || !is_punct(r, k, '*'))
		return NONE;
	while (k < close && is_punct(r, k, '*'))
		k++;
	while (k < close && tok_in(ct(r, k), qualifiers))
		k++;
	if (k >= close || ct(r, k)->kind != TOK_IDENT || is_attr(ct(r, k)))
		return NONE;
	name = k++;
	while (k < close && tok_punct(ct(r, k), '['))
		k = item_end(r, k, close);
	return k == close ? name : NONE;
}

/*
 * Read items[0..n) (code indices of one declarator, with the
 * specifiers when `first`) as a declaration.  False when it is not one
 * beyond doubt.
 */
static bool read_declarator(const struct resolver *r, const guint32 *it,
			    int n, bool first, struct declarator *d)
{
	int j = n - 1, specs = 0;
	guint32 name;

	d->name = NONE;
	d->params = NONE;
	d->function = false;
	/* attributes after the declarator: __aligned(8), __initdata */
	while (j >= 0) {
		if (j >= 1 && tok_punct(ct(r, it[j]), '(') &&
		    is_attr(ct(r, it[j - 1])))
			j -= 2;
		else if (is_attr(ct(r, it[j])))
			j--;
		else
			break;
	}
	while (j >= 0 && tok_punct(ct(r, it[j]), '['))
		j--;
	if (j >= 1 && tok_punct(ct(r, it[j]), '(') &&
	    (ct(r, it[j - 1])->kind == TOK_IDENT ||
	     tok_punct(ct(r, it[j - 1]), '('))) {
		d->params = it[j];
		d->function = ct(r, it[j - 1])->kind == TOK_IDENT;
		j--;
	}
	if (j < 0)
		return false;
	if (ct(r, it[j])->kind == TOK_IDENT) {
		name = it[j];
		if (tok_in(ct(r, name), stmt_words) ||
		    specifier_word(ct(r, name)))
			return false;
	} else if (tok_punct(ct(r, it[j]), '(')) {
		name = pointer_group(r, it[j]);
		if (name == NONE)
			return false;
		d->function = false;
	} else {
		return false;
	}
	/* what comes before the name */
	for (int i = 0; i < j; i++) {
		const struct token *tok = ct(r, it[i]);

		if (tok_punct(tok, '*'))
			continue;
		if (!first) {
			if (tok_in(tok, qualifiers) || is_attr(tok))
				continue;
			if (tok_punct(tok, '(') && i > 0 &&
			    is_attr(ct(r, it[i - 1])))
				continue;
			return false;
		}
		if (tok->kind == TOK_IDENT) {
			if (tok_in(tok, stmt_words) &&
			    !TOK_IS(tok, "typeof") &&
			    !TOK_IS(tok, "__typeof__") &&
			    !TOK_IS(tok, "__typeof"))
				return false;
			if (TOK_IS(tok, "static"))
				d->is_static = true;
			if (TOK_IS(tok, "typedef"))
				d->is_typedef = true;
			if (!is_attr(tok) || specifier_word(tok))
				specs++;
			continue;
		}
		/* typeof(x), __attribute__((x)), struct x { ... } */
		if (tok_punct(tok, '(') && i > 0 &&
		    ct(r, it[i - 1])->kind == TOK_IDENT &&
		    (is_attr(ct(r, it[i - 1])) ||
		     TOK_IS(ct(r, it[i - 1]), "typeof") ||
		     TOK_IS(ct(r, it[i - 1]), "_Alignas") ||
		     TOK_IS(ct(r, it[i - 1]), "_Atomic")))
			continue;
		if (tok_punct(tok, '{') && i > 0 &&
		    (tok_in(ct(r, it[i - 1]), (const char *const[]){
				"struct", "union", "enum", NULL }) ||
		     (i > 1 && tok_in(ct(r, it[i - 2]), (const char *const[]){
				"struct", "union", "enum", NULL }))))
			continue;
		return false;
	}
	if (first && !specs)
		return false;
	d->name = name;
	return true;
}

/* The items of [a, b) up to the first top-level stop token, at most max. */
static int collect_items(const struct resolver *r, guint32 a, guint32 b,
			 guint32 *it, int max, const char *stops,
			 guint32 *stop_at)
{
	int n = 0;

	*stop_at = b;
	for (guint32 k = a; k < b; k = item_end(r, k, b)) {
		const struct token *tok = ct(r, k);

		if (tok->kind == TOK_PUNCT && tok->len == 1 &&
		    strchr(stops, tok->p[0])) {
			*stop_at = k;
			break;
		}
		if (n == max)
			return -1;
		it[n++] = k;
	}
	return n;
}

static void settle(struct settled *s, guint32 k, enum name_role role)
{
	if (s->n < G_N_ELEMENTS(s->k)) {
		s->k[s->n] = k;
		s->role[s->n++] = (guint8)role;
	}
}

/*
 * The parameters in the group opened at `open`: their names are
 * settled as locals (and added to `params` when it is not NULL);
 * function-pointer parameters' own parameters too.
 */
static void read_params(struct resolver *r, guint32 open, struct settled *s,
			GArray *params, int depth)
{
	guint32 close = r->match[open], a = open + 1;

	if (close == NONE || depth > MAX_DEPTH)
		return;
	while (a < close) {
		guint32 it[MAX_ITEMS], stop;
		int n = collect_items(r, a, close, it, MAX_ITEMS, ",", &stop);
		struct declarator d = { 0 };

		if (n > 0 && read_declarator(r, it, n, true, &d)) {
			settle(s, d.name, NAME_LOCAL);
			if (params)
				g_array_append_val(params, r->code[d.name]);
			if (d.params != NONE)
				read_params(r, d.params, s, NULL, depth + 1);
		}
		if (n < 0) {
			/* too long to read: to the next top-level comma */
			for (stop = a; stop < close && !is_punct(r, stop, ',');
			     stop = item_end(r, stop, close))
				;
		}
		a = stop + 1;
	}
}

/* Does the statement [a, b) hold a top-level '='? */
static bool has_assign(const struct resolver *r, guint32 a, guint32 b)
{
	for (guint32 k = a; k < b; k = item_end(r, k, b))
		if (tok_punct(ct(r, k), '='))
			return true;
	return false;
}

enum stmt_mode {
	STMT,		/* ended by ';' (or by its scope's end) */
	FUNC_HEADER,	/* ended by a function body's '{' */
	CONTROL,	/* ended by a block's '{': if (...) {, do { */
};

/*
 * Read the statement [a, b) of scope s, settle its waiting identifiers
 * and declare what it declares.  `params`: the parameters of the
 * function whose body follows (FUNC_HEADER).
 */
static void read_statement(struct resolver *r, struct scope *s, guint32 a,
			   guint32 b, enum stmt_mode mode, GArray *params)
{
	struct settled st = { .n = 0 };
	GArray *declared = g_array_new(FALSE, FALSE, sizeof(guint32));
	bool first = true, decl = mode != CONTROL;
	bool is_static = false, is_typedef = false;
	bool col0 = a < r->m && ct(r, a)->col == 0;
	guint32 seg = a;

	if (r->pending->len == s->pending)
		goto out;
	while (decl && seg < b) {
		guint32 it[MAX_ITEMS], stop, next;
		int n = collect_items(r, seg, b, it, MAX_ITEMS,
				      s->kind == SC_STRUCT ? ",=:" : ",=",
				      &stop);
		struct declarator d = { 0 };

		if (n <= 0 || !read_declarator(r, it, n, first, &d)) {
			if (first)
				break;
		} else {
			enum name_role role;

			if (first) {
				is_static = d.is_static;
				is_typedef = d.is_typedef;
			}
			if (s->kind == SC_STRUCT)
				role = NAME_MEMBER;
			else if (s->kind == SC_FILE || d.function)
				role = NAME_ORDINARY;
			else
				role = NAME_LOCAL;
			settle(&st, d.name, role);
			if (role == NAME_LOCAL)
				g_array_append_val(declared, r->code[d.name]);
			if (s->kind == SC_FILE && r->wanted(ct(r, d.name),
							    r->ctx)) {
				if (is_static || is_typedef)
					emit_decl(r, d.name, DECL_OWN, !col0);
				else if (d.function)
					emit_decl(r, d.name, DECL_EXTERN,
						  false);
			}
			if (d.params != NONE)
				read_params(r, d.params, &st,
					    mode == FUNC_HEADER && first ?
					    params : NULL, 0);
		}
		first = false;
		/* past the initialiser, to the next top-level comma */
		next = stop;
		while (next < b && !is_punct(r, next, ','))
			next = item_end(r, next, b);
		seg = next + 1;
	}
	for (guint i = s->pending; i < r->pending->len; i++) {
		guint32 k = g_array_index(r->pending, guint32, i);
		guint j;

		for (j = 0; j < st.n && st.k[j] != k; j++)
			;
		if (j < st.n)
			emit(r, k, st.role[j]);
		else
			by_scope(r, k);
	}
out:
	g_array_set_size(r->pending, s->pending);
	g_array_append_vals(r->locals, declared->data, declared->len);
	g_array_free(declared, TRUE);
}

/* ---- scopes ---- */

static void push_scope(struct resolver *r, enum scope_kind kind,
		       guint32 open, bool ends_stmt)
{
	struct scope s = {
		.kind = kind, .ends_stmt = ends_stmt, .open = open,
		.stmt = open + 1, .locals = r->locals->len,
		.pending = r->pending->len, .parens = r->parens->len,
	};

	g_array_append_val(r->scopes, s);
}

static bool statement_scope(const struct scope *s)
{
	return s->kind == SC_FILE || s->kind == SC_FUNC ||
	       s->kind == SC_BLOCK || s->kind == SC_STRUCT;
}

/* Close the innermost scope at code index k (its '}', or where a
 * conditional branch ends). */
static void close_scope(struct resolver *r, guint32 k)
{
	struct scope s = *top(r);

	if (statement_scope(&s))
		read_statement(r, top(r), s.stmt, k, STMT, NULL);
	for (guint i = s.pending; i < r->pending->len; i++)
		by_scope(r, g_array_index(r->pending, guint32, i));
	g_array_set_size(r->pending, s.pending);
	for (guint i = s.parens; i < r->parens->len; i++)
		r->match[g_array_index(r->parens, guint32, i)] = k;
	g_array_set_size(r->parens, s.parens);
	/* enumerators belong to the scope around the enum */
	if (s.kind != SC_ENUM)
		g_array_set_size(r->locals, s.locals);
	r->match[s.open] = k;
	g_array_set_size(r->scopes, r->scopes->len - 1);
	if (s.kind == SC_FUNC || s.ends_stmt)
		top(r)->stmt = k + 1;
}

/* struct x {, union {, enum x __packed { */
static enum scope_kind tagged_body(const struct resolver *r, guint32 k)
{
	guint32 j = k;

	for (int steps = 0; j > 0 && steps < 6; steps++) {
		const struct token *tok = ct(r, --j);

		if (TOK_IS(tok, "struct") || TOK_IS(tok, "union"))
			return SC_STRUCT;
		if (TOK_IS(tok, "enum"))
			return SC_ENUM;
		if (tok_punct(tok, ')')) {
			/* an attribute's arguments: back to its '(' */
			guint32 o = j;
			int depth = 0;

			do {
				if (tok_punct(ct(r, o), ')'))
					depth++;
				else if (tok_punct(ct(r, o), '('))
					depth--;
			} while (depth && o-- > 0);
			if (depth || o == 0 || !is_attr(ct(r, o - 1)))
				return SC_FILE;
			j = o;
			continue;
		}
		if (tok->kind != TOK_IDENT || tok_in(tok, stmt_words) ||
		    TOK_IS(tok, "else"))
			return SC_FILE;
	}
	return SC_FILE;
}

static void open_brace(struct resolver *r, guint32 k)
{
	struct scope *s = top(r);
	enum scope_kind kind = tagged_body(r, k);

	if (kind != SC_FILE) {
		/* a struct or enum body */
	} else if (s->kind == SC_INIT || s->kind == SC_ENUM ||
		   s->kind == SC_STRUCT || (k > 0 && is_punct(r, k - 1, '='))) {
		kind = SC_INIT;
	} else if (paren_level(r) > 0) {
		kind = k > 0 && is_punct(r, k - 1, '(') ? SC_BLOCK : SC_INIT;
	} else if (has_assign(r, s->stmt, k) ||
		   (s->stmt < k && TOK_IS(ct(r, s->stmt), "return"))) {
		kind = SC_INIT;
	} else if (s->kind == SC_FILE) {
		GArray *params = g_array_new(FALSE, FALSE, sizeof(guint32));

		read_statement(r, s, s->stmt, k, FUNC_HEADER, params);
		push_scope(r, SC_FUNC, k, false);
		g_array_append_vals(r->locals, params->data, params->len);
		g_array_free(params, TRUE);
		return;
	} else {
		read_statement(r, s, s->stmt, k, CONTROL, NULL);
		push_scope(r, SC_BLOCK, k, true);
		return;
	}
	push_scope(r, kind, k, false);
}

/* ---- identifiers ---- */

static bool member_macro_arg(struct resolver *r, guint32 k)
{
	guint32 open;

	if (!is_punct(r, k + 1, ')') || !is_punct(r, k - 1, ',') ||
	    !paren_level(r))
		return false;
	open = g_array_index(r->parens, guint32, r->parens->len - 1);
	return open > 0 && tok_punct(ct(r, open), '(') &&
	       tok_in(ct(r, open - 1), member_macros);
}

static void identifier(struct resolver *r, guint32 k)
{
	struct scope *s = top(r);
	const struct token *prev = k > 0 ? ct(r, k - 1) : NULL;

	if (prev && (tok_punct(prev, '.') || TOK_IS(prev, "->"))) {
		emit(r, k, NAME_MEMBER);
	} else if (prev && (TOK_IS(prev, "struct") || TOK_IS(prev, "union") ||
			    TOK_IS(prev, "enum"))) {
		emit(r, k, NAME_TAG);
	} else if (prev && TOK_IS(prev, "goto")) {
		emit(r, k, NAME_LABEL);
	} else if (k > 0 && member_macro_arg(r, k)) {
		emit(r, k, NAME_MEMBER);
	} else if (s->kind == SC_ENUM) {
		if (prev && (tok_punct(prev, '{') || tok_punct(prev, ',')) &&
		    !paren_level(r) &&
		    (is_punct(r, k + 1, '=') || is_punct(r, k + 1, ',') ||
		     is_punct(r, k + 1, '}'))) {
			struct scope *up = &g_array_index(r->scopes,
				struct scope, r->scopes->len - 2);

			if (up->kind == SC_FILE) {
				emit(r, k, NAME_ORDINARY);
				emit_decl(r, k, DECL_OWN, false);
			} else {
				emit(r, k, NAME_LOCAL);
				g_array_append_val(r->locals, r->code[k]);
			}
		} else {
			by_scope(r, k);
		}
	} else if (s->kind == SC_INIT) {
		if (prev && (tok_punct(prev, '{') || tok_punct(prev, ',')) &&
		    is_punct(r, k + 1, ':') && !paren_level(r))
			emit(r, k, NAME_MEMBER);	/* { name: value } */
		else
			by_scope(r, k);
	} else if ((s->kind == SC_FUNC || s->kind == SC_BLOCK) &&
		   k == s->stmt && is_punct(r, k + 1, ':')) {
		emit(r, k, NAME_LABEL);
	} else {
		g_array_append_val(r->pending, k);
	}
}

/* ---- preprocessor ---- */

/* Settle the wanted identifiers of the directive at t[i]; the index of
 * its end. */
static size_t directive(struct resolver *r, size_t i, size_t n)
{
	const struct token *t = r->t;
	size_t params = 0, nparams = 0, j = i + 1;
	bool is_define = j < n && (t[j].flags & TF_PP) &&
			 t[j].pp == PP_DEFINE;

	if (is_define && j + 2 < n && tok_punct(&t[j + 2], '(') &&
	    !(t[j + 2].flags & TF_DEFINE_BODY)) {
		params = j + 3;
		while (params + nparams < n &&
		       (t[params + nparams].flags & TF_PP) &&
		       !(t[params + nparams].flags & TF_DEFINE_BODY) &&
		       t[params + nparams].kind != TOK_PP_END)
			nparams++;
	}
	for (; j < n && t[j].kind != TOK_EOF && t[j].kind != TOK_PP_END &&
	       (t[j].flags & TF_PP); j++) {
		bool local = false;

		if (t[j].kind != TOK_IDENT || !r->wanted(&t[j], r->ctx))
			continue;
		if (!(t[j].flags & TF_DEFINE_BODY)) {
			struct name_use u = { (guint32)j, NAME_DIRECTIVE };

			g_array_append_val(r->uses, u);
			continue;
		}
		for (size_t p = params; p < params + nparams && !local; p++)
			local = t[p].kind == TOK_IDENT &&
				same_name(&t[p], &t[j]);
		{
			const struct token *prev = &t[j - 1];
			struct name_use u = { (guint32)j, NAME_ORDINARY };

			if ((prev->flags & TF_DEFINE_BODY) &&
			    (tok_punct(prev, '.') || TOK_IS(prev, "->")))
				u.role = NAME_MEMBER;
			else if (local)
				u.role = NAME_LOCAL;
			g_array_append_val(r->uses, u);
		}
	}
	return j;
}

/* Which directives open, switch and close conditionals; the guard of a
 * header (#ifndef X / #define X first) does not count. */
static void conditionals(struct resolver *r, size_t n, GArray *cond_stack)
{
	const struct token *t = r->t;
	int depth = 0;
	bool first = true, guard_pending = false;
	const struct token *guard = NULL;

	for (size_t i = 0; i < n && t[i].kind != TOK_EOF; i++) {
		size_t d;
		enum pp_kind kind;

		if (!(t[i].flags & TF_PP)) {
			r->code[r->m] = (guint32)i;
			r->cond[r->m++] = depth > 0;
			continue;
		}
		d = i + 1;
		kind = d < n && (t[d].flags & TF_PP) &&
		       t[d].kind == TOK_IDENT ? t[d].pp : PP_OTHER;
		if (guard_pending) {
			guard_pending = false;
			if (!(kind == PP_DEFINE && d + 1 < n &&
			      same_name(&t[d + 1], guard))) {
				/* not a guard after all */
				g_array_index(cond_stack, bool, 0) = false;
				depth++;
			}
		}
		if (kind == PP_IF || kind == PP_IFDEF || kind == PP_IFNDEF) {
			bool is_guard = first && kind == PP_IFNDEF &&
					d + 1 < n && t[d + 1].kind == TOK_IDENT;

			g_array_append_val(cond_stack, is_guard);
			if (is_guard) {
				guard = &t[d + 1];
				guard_pending = true;
			} else {
				depth++;
			}
		} else if (kind == PP_ENDIF && cond_stack->len) {
			if (!g_array_index(cond_stack, bool,
					   cond_stack->len - 1))
				depth--;
			g_array_set_size(cond_stack, cond_stack->len - 1);
		}
		if (kind == PP_IF || kind == PP_IFDEF || kind == PP_IFNDEF ||
		    kind == PP_ELIF || kind == PP_ELSE || kind == PP_ENDIF) {
			struct pp_event e = {
				r->m, (guint8)(kind == PP_ELIF ? PP_ELSE :
					       kind == PP_IFDEF ||
					       kind == PP_IFNDEF ? PP_IF : kind)
			};

			g_array_append_val(r->events, e);
		}
		first = false;
		i = directive(r, i, n);
		if (i >= n || t[i].kind == TOK_EOF)
			break;
		if (!(t[i].flags & TF_PP))
			i--;	/* a directive without its end */
	}
}

static void pp_event(struct resolver *r, const struct pp_event *e)
{
	struct cond_mark *mk;

	if (e->kind == PP_IF) {
		struct cond_mark m = { r->scopes->len, r->parens->len, -1 };

		g_array_append_val(r->marks, m);
		return;
	}
	if (!r->marks->len)
		return;
	mk = &g_array_index(r->marks, struct cond_mark, r->marks->len - 1);
	if (e->kind == PP_ELSE) {
		if (mk->after_first < 0)
			mk->after_first = (int)r->scopes->len;
		while (r->scopes->len > mk->scopes && r->scopes->len > 1)
			close_scope(r, e->at);
		if (r->parens->len > mk->parens &&
		    r->parens->len > top(r)->parens)
			g_array_set_size(r->parens, MAX(mk->parens,
							top(r)->parens));
		return;
	}
	/* #endif */
	while (mk->after_first >= 0 &&
	       r->scopes->len > (guint)mk->after_first && r->scopes->len > 1)
		close_scope(r, e->at);
	g_array_set_size(r->marks, r->marks->len - 1);
}

/* ---- the pass ---- */

static int cmp_use(const void *a, const void *b)
{
	const struct name_use *x = a, *y = b;

	return x->tok < y->tok ? -1 : x->tok > y->tok;
}

static void code_token(struct resolver *r, guint32 k)
{
	const struct token *tok = ct(r, k);
	struct scope *s = top(r);

	if (tok->kind == TOK_IDENT) {
		if (r->wanted(tok, r->ctx))
			identifier(r, k);
		else if ((s->kind == SC_FUNC || s->kind == SC_BLOCK) &&
			 k == s->stmt && is_punct(r, k + 1, ':') &&
			 !TOK_IS(tok, "default"))
			s->stmt = k + 2;	/* a label */
		return;
	}
	if (tok->kind != TOK_PUNCT || tok->len != 1)
		return;
	switch (tok->p[0]) {
	case '(':
	case '[':
		g_array_append_val(r->parens, k);
		break;
	case ')':
	case ']':
		if (paren_level(r)) {
			guint32 o = g_array_index(r->parens, guint32,
						  r->parens->len - 1);

			r->match[o] = k;
			g_array_set_size(r->parens, r->parens->len - 1);
		}
		break;
	case ';':
		if (statement_scope(s) && !paren_level(r)) {
			read_statement(r, s, s->stmt, k, STMT, NULL);
			s->stmt = k + 1;
		}
		break;
	case '{':
		/* kernel style: a function body's '{' starts its line */
		if (tok->col == 0 && r->scopes->len > 1 && k > 0 &&
		    is_punct(r, k - 1, ')') && s->kind != SC_INIT)
			while (r->scopes->len > 1)
				close_scope(r, k);
		open_brace(r, k);
		break;
	case '}':
		if (tok->col == 0)
			while (r->scopes->len > 2)
				close_scope(r, k);
		if (r->scopes->len > 1)
			close_scope(r, k);
		break;
	default:
		break;
	}
}

void names_resolve(const struct token *t, size_t n, name_wanted_fn wanted,
		   void *ctx, GArray *uses, GArray *decls)
{
	struct resolver r = {
		.t = t, .wanted = wanted, .ctx = ctx, .uses = uses,
		.decls = decls,
	};
	GArray *cond_stack = g_array_new(FALSE, FALSE, sizeof(bool));
	guint ev = 0;
	guint first_use = uses->len;

	r.code = g_new(guint32, n + 1);
	r.cond = g_new(guint8, n + 1);
	r.scopes = g_array_new(FALSE, FALSE, sizeof(struct scope));
	r.parens = g_array_new(FALSE, FALSE, sizeof(guint32));
	r.locals = g_array_new(FALSE, FALSE, sizeof(guint32));
	r.pending = g_array_new(FALSE, FALSE, sizeof(guint32));
	r.events = g_array_new(FALSE, FALSE, sizeof(struct pp_event));
	r.marks = g_array_new(FALSE, FALSE, sizeof(struct cond_mark));
	conditionals(&r, n, cond_stack);
	r.match = g_new(guint32, r.m + 1);
	memset(r.match, 0xff, sizeof(guint32) * (r.m + 1));
	push_scope(&r, SC_FILE, 0, false);
	top(&r)->stmt = 0;
	for (guint32 k = 0; k < r.m; k++) {
		while (ev < r.events->len &&
		       g_array_index(r.events, struct pp_event, ev).at <= k)
			pp_event(&r, &g_array_index(r.events, struct pp_event,
						    ev++));
		code_token(&r, k);
	}
	while (ev < r.events->len)
		pp_event(&r, &g_array_index(r.events, struct pp_event, ev++));
	while (r.scopes->len > 1)
		close_scope(&r, r.m);
	read_statement(&r, top(&r), top(&r)->stmt, r.m, STMT, NULL);
	for (guint i = 0; i < r.pending->len; i++)
		by_scope(&r, g_array_index(r.pending, guint32, i));
	if (uses->len > first_use)
		qsort(uses->data + first_use * sizeof(struct name_use),
		      uses->len - first_use, sizeof(struct name_use),
		      cmp_use);
	g_free(r.code);
	g_free(r.cond);
	g_free(r.match);
	g_array_free(r.scopes, TRUE);
	g_array_free(r.parens, TRUE);
	g_array_free(r.locals, TRUE);
	g_array_free(r.pending, TRUE);
	g_array_free(r.events, TRUE);
	g_array_free(r.marks, TRUE);
	g_array_free(cond_stack, TRUE);
}
