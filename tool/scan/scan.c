// SPDX-License-Identifier: GPL-2.0
/*
 * Find the old timer API as code.  What is not a site:
 *  - a name in a comment or a string (the lexer drops those);
 *  - a struct member or ops field: `hw->setup_timer`, `.setup_timer = f`;
 *  - a declaration or definition of a function of that name, and every
 *    call in a file that defines its own (userspace code in tools/);
 *  - a call with the wrong number of arguments for the API;
 *  - today's names (init_timer_key, __init_timer, 2-argument
 *    DEFINE_TIMER and __TIMER_INITIALIZER).
 * Sites inside compat branches and compat definitions are kept but marked,
 * so that `convert` can report them and `check` can stay silent.
 */
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "lexer.h"
#include "ppcond.h"
#include "scan.h"

struct arg {
	size_t first;	/* token index of the first token */
	size_t end;	/* one past the last */
};

struct scanner {
	const struct token *t;
	size_t n;
	const struct scan_opts *opts;
	struct scan_result *res;
	GHashTable *local_defs;	/* API names this file defines itself */
	unsigned char *mark;
	const char *cur_func;
	char *cur_func_buf;
	const char *cur_define;
	char *cur_define_buf;
};

static const char *const timer_funcs[] = {
	"add_timer", "add_timer_on", "add_timer_local", "add_timer_global",
	"mod_timer", "mod_timer_pending", "timer_reduce", "del_timer",
	"del_timer_sync", "try_to_del_timer_sync", "timer_pending",
	"timer_delete", "timer_delete_sync", "timer_shutdown",
	"timer_shutdown_sync", "destroy_timer_on_stack",
	"timer_destroy_on_stack", "timer_setup", "timer_setup_on_stack",
	"del_singleshot_timer_sync", NULL
};

static const char *const not_decl_words[] = {
	"return", "else", "do", "case", "sizeof", "typeof", "__typeof__",
	"defined", "goto", NULL
};

/* "timer" (the search ends there), "TIMER", or an old API name with it */
enum {
	HAS_LOWER = 1,
	HAS_UPPER = 2,
	HAS_UPPER_API = 4,
};

/*
 * Is the "TIMER" at w part of an old API name without "timer"?  That is
 * DEFINE_TIMER or one of the *TIMER*_INITIALIZER names; any longer name
 * holding them is only compared in full later, by the scan itself.
 */
static bool upper_api_at(const char *data, const char *w, size_t len)
{
	const char *rest = w + 5;

	if (w - data >= 7 && !memcmp(w - 7, "DEFINE_", 7))
		return true;
	return memmem(rest, lex_ident_end(rest, data + len) - rest,
		      "INITIALIZER", 11) != NULL;
}

/*
 * The first "timer" or "TIMER" in [p, end), or end.  Most files of a tree
 * hold neither, and memmem() reads each of them once a word: with SSE2,
 * 16 windows at a time are tested for a t/T that has an r/R four bytes
 * on, and only those are compared in full.
 */
static const char *timer_bytes(const char *p, const char *end)
{
#ifdef __SSE2__
	const __m128i lt = _mm_set1_epi8('t'), ut = _mm_set1_epi8('T');
	const __m128i lr = _mm_set1_epi8('r'), ur = _mm_set1_epi8('R');

	for (; end - p >= 4 + 16; p += 16) {
		__m128i first = _mm_loadu_si128((const __m128i *)p);
		__m128i last = _mm_loadu_si128((const __m128i *)(p + 4));
		unsigned int mask = (unsigned int)_mm_movemask_epi8(
			_mm_or_si128(
				_mm_and_si128(_mm_cmpeq_epi8(first, lt),
					      _mm_cmpeq_epi8(last, lr)),
				_mm_and_si128(_mm_cmpeq_epi8(first, ut),
					      _mm_cmpeq_epi8(last, ur))));

		for (; mask; mask &= mask - 1) {
			const char *w = p + __builtin_ctz(mask);

			if (!memcmp(w, "timer", 5) || !memcmp(w, "TIMER", 5))
				return w;
		}
	}
#endif
	for (; end - p >= 5; p++)
		if ((*p == 't' && !memcmp(p, "timer", 5)) ||
		    (*p == 'T' && !memcmp(p, "TIMER", 5)))
			return p;
	return end;
}

/*
 * Does the text hold "timer", "TIMER", and an old API name spelled in
 * capitals?  The search ends at the first "timer".
 */
static unsigned int timer_case(const char *data, size_t len)
{
	const char *p = data, *end = data + len;
	unsigned int found = 0;

	while ((p = timer_bytes(p, end)) < end) {
		if (*p == 't')
			return HAS_LOWER;
		found |= HAS_UPPER;
		if (!(found & HAS_UPPER_API) && upper_api_at(data, p, len))
			found |= HAS_UPPER_API;
		p++;
	}
	return found;
}

/*
 * Does the text hold "long", "data" or "function"?  One SSE2 pass tests
 * each window for the first and last byte of each.
 */
static bool has_member_or_long(const char *data, size_t len)
{
	static const char *const words[] = { "long", "data", "function" };
	size_t i = 0;

#ifdef __SSE2__
	const __m128i l = _mm_set1_epi8('l'), g = _mm_set1_epi8('g');
	const __m128i d = _mm_set1_epi8('d'), a = _mm_set1_epi8('a');
	const __m128i f = _mm_set1_epi8('f'), n = _mm_set1_epi8('n');

	for (; i + 7 + 16 <= len; i += 16) {
		__m128i at0 = _mm_loadu_si128((const __m128i *)(data + i));
		__m128i at3 = _mm_loadu_si128((const __m128i *)(data + i + 3));
		__m128i at7 = _mm_loadu_si128((const __m128i *)(data + i + 7));
		__m128i hit = _mm_or_si128(
			_mm_or_si128(
				_mm_and_si128(_mm_cmpeq_epi8(at0, l),
					      _mm_cmpeq_epi8(at3, g)),
				_mm_and_si128(_mm_cmpeq_epi8(at0, d),
					      _mm_cmpeq_epi8(at3, a))),
			_mm_and_si128(_mm_cmpeq_epi8(at0, f),
				      _mm_cmpeq_epi8(at7, n)));
		unsigned int mask = (unsigned int)_mm_movemask_epi8(hit);

		for (; mask; mask &= mask - 1) {
			const char *w = data + i + __builtin_ctz(mask);

			for (size_t k = 0; k < G_N_ELEMENTS(words); k++)
				if (!memcmp(w, words[k], strlen(words[k])))
					return true;
		}
	}
#endif
	for (size_t k = 0; k < G_N_ELEMENTS(words); k++)
		if (memmem(data + i, len - i, words[k], strlen(words[k])))
			return true;
	return false;
}

/*
 * Can the text hold anything the scan reports?  It must hold "timer" or
 * "TIMER" (the candidate scan's rule).  A text that holds only "TIMER",
 * as a GPU driver's register headers do by the thousand, yields nothing
 * unless it also holds one of:
 *  - an old API name without "timer": DEFINE_TIMER, *TIMER*_INITIALIZER;
 *  - "long": a callback taking (unsigned) long, which a timer in another
 *    file may be handed;
 *  - "data" or "function": an assignment to a member of a timer that a
 *    header declares.
 * Its timer names come from `struct timer_list` declarations and calls of
 * today's lowercase API, so it has none to lend to the files including
 * it.  Skipping such files before lexing halves the bytes `check` lexes on
 * a kernel tree.
 */
bool scan_prefilter(const char *data, size_t len)
{
	unsigned int found = timer_case(data, len);

	if (found & (HAS_LOWER | HAS_UPPER_API))
		return true;
	return found && has_member_or_long(data, len);
}

static char *tok_dup(const struct token *tok)
{
	return g_strndup(tok->p, tok->len);
}

static bool is_member_op(const struct token *tok)
{
	return tok->kind == TOK_PUNCT &&
	       ((tok->len == 1 && tok->p[0] == '.') || TOK_IS(tok, "->"));
}

/* Split the argument list whose '(' is at t[open]. */
static GArray *split_args(const struct token *t, size_t n, size_t open,
			  size_t *close)
{
	GArray *args = g_array_new(FALSE, FALSE, sizeof(struct arg));
	struct arg a = { open + 1, open + 1 };
	int depth = 0;
	size_t i;

	for (i = open; i < n && t[i].kind != TOK_EOF; i++) {
		const struct token *tok = &t[i];

		if (tok->kind != TOK_PUNCT || tok->len != 1)
			continue;
		if (strchr("([{", tok->p[0])) {
			depth++;
		} else if (strchr(")]}", tok->p[0])) {
			if (--depth == 0)
				break;
		} else if (tok->p[0] == ',' && depth == 1) {
			a.end = i;
			g_array_append_val(args, a);
			a.first = i + 1;
		}
	}
	a.end = i;
	if (a.end > a.first || args->len > 0)
		g_array_append_val(args, a);
	*close = i < n ? i : n - 1;
	return args;
}

/*
 * The function an argument names: fn, &fn, or either through casts,
 * (void *)fn and (void (*)(unsigned long))fn, as vendor code installs
 * callbacks that take a pointer.
 */
static const struct token *arg_ident(const struct token *t, struct arg a)
{
	while (a.end > a.first + 1 && tok_punct(&t[a.first], '(')) {
		size_t close = a.first;
		int depth = 0;

		for (size_t i = a.first; i < a.end; i++) {
			if (tok_punct(&t[i], '('))
				depth++;
			else if (tok_punct(&t[i], ')') && --depth == 0) {
				close = i;
				break;
			}
		}
		if (close == a.first)
			return NULL;
		if (close == a.end - 1) {	/* (fn) */
			a.first++;
			a.end--;
		} else {			/* (type)fn */
			a.first = close + 1;
		}
	}
	if (a.end == a.first + 1 && t[a.first].kind == TOK_IDENT)
		return &t[a.first];
	if (a.end == a.first + 2 && tok_punct(&t[a.first], '&') &&
	    t[a.first + 1].kind == TOK_IDENT)
		return &t[a.first + 1];
	return NULL;
}

/*
 * (TIMER_FUNC_TYPE)fn: a callback taking the timer, cast for a v4.14
 * struct timer_list, whose .function still takes unsigned long.  A call
 * of the old API written so is v4.14's spelling of the new one.
 */
static bool v414_cast(const struct token *t, struct arg a)
{
	return a.end > a.first + 3 && tok_punct(&t[a.first], '(') &&
	       TOK_IS(&t[a.first + 1], "TIMER_FUNC_TYPE") &&
	       tok_punct(&t[a.first + 2], ')');
}

/* The last name in an object expression: `&p->timers[2]` -> timers. */
static const struct token *arg_last_name(const struct token *t, struct arg a)
{
	size_t j;

	if (a.end <= a.first)
		return NULL;
	j = a.end - 1;
	while (j > a.first && tok_punct(&t[j], ')') &&
	       tok_punct(&t[a.first], '(') && tok_match_open(t, 0, j) == a.first) {
		a.first++;
		j--;
	}
	if (tok_punct(&t[j], ']')) {
		size_t o = tok_match_open(t, 0, j);

		if (o == SIZE_MAX || o <= a.first)
			return NULL;
		j = o - 1;
	}
	return t[j].kind == TOK_IDENT ? &t[j] : NULL;
}

static char *join_tokens(const struct token *t, size_t from, size_t to)
{
	GString *s = g_string_new(NULL);

	for (size_t i = from; i <= to && t[i].kind != TOK_EOF; i++) {
		if (t[i].kind == TOK_PP_END)
			continue;
		if (s->len)
			g_string_append_c(s, ' ');
		g_string_append_len(s, t[i].p, t[i].len);
	}
	return g_string_free(s, FALSE);
}

static void add_timer_name(struct scanner *sc, const struct token *tok)
{
	char *name;

	if (!tok)
		return;
	name = tok_dup(tok);
	if (g_hash_table_contains(sc->res->timer_names, name))
		g_free(name);
	else
		g_hash_table_add(sc->res->timer_names, name);
}

/* struct timer_list a, *b, c[4]; and parameters. */
static void timer_declarators(struct scanner *sc, size_t i)
{
	const struct token *t = sc->t;
	size_t j = i + 2;

	while (j < sc->n) {
		while (j < sc->n && (tok_punct(&t[j], '*') ||
				     TOK_IS(&t[j], "const") ||
				     TOK_IS(&t[j], "volatile")))
			j++;
		if (t[j].kind != TOK_IDENT)
			return;
		add_timer_name(sc, &t[j]);
		j++;
		/* an unclosed [ runs to the EOF token: j is then sc->n */
		while (j < sc->n && tok_punct(&t[j], '['))
			j = tok_match_close(t, sc->n, j) + 1;
		if (j >= sc->n || !tok_punct(&t[j], ','))
			return;
		j++;
	}
}

static bool in_compat(struct scanner *sc, unsigned int line)
{
	return line_in_ranges(sc->res->compat_ranges, line);
}

static void record_cb_use(struct scanner *sc, const struct token *cb,
			  const char *object, bool cast)
{
	struct cb_use u = { 0 };

	if (!cb)
		return;
	u.cast = cast;
	u.name = tok_dup(cb);
	u.line = cb->line;
	u.col = cb->col;
	u.object = g_strdup(object);
	g_array_append_val(sc->res->cb_uses, u);
}

/*
 * Is the name at t[i] declared here rather than called?  `int
 * setup_timer(int clock)`: the token before it is a type.
 */
static bool looks_declared(const struct scanner *sc, size_t i)
{
	const struct token *prev;

	if (i == 0)
		return false;
	prev = &sc->t[i - 1];
	if (prev->flags & TF_PP && !(prev->flags & TF_DEFINE_BODY))
		return false;
	if (prev->kind == TOK_IDENT)
		return !tok_in(prev, not_decl_words);
	return false;
}

static void compat_site(struct scanner *sc, struct site *s)
{
	if (line_in_ranges(sc->res->dead_ranges, s->line)) {
		s->compat = true;
		s->compat_why = g_strdup("dead code (#if 0)");
	} else if (sc->cur_define && api_is_new_name(sc->cur_define,
						     strlen(sc->cur_define))) {
		s->compat = true;
		s->compat_why = g_strdup_printf(
			"compat definition of %s()", sc->cur_define);
	} else if (sc->cur_func && api_is_new_name(sc->cur_func,
						   strlen(sc->cur_func))) {
		s->compat = true;
		s->compat_why = g_strdup_printf(
			"compat definition of %s()", sc->cur_func);
	} else if (in_compat(sc, s->line)) {
		s->compat = true;
		s->compat_why = g_strdup("compat branch");
	}
}

static void api_call(struct scanner *sc, size_t i, const struct api *api)
{
	const struct token *t = sc->t;
	struct site s = { 0 };
	size_t close;
	GArray *args;
	struct arg *a;

	if (looks_declared(sc, i) && api->kind != API_DEFINE) {
		g_hash_table_add(sc->local_defs, (gpointer)api->name);
		return;
	}
	args = split_args(t, sc->n, i + 1, &close);
	a = (struct arg *)args->data;
	if ((int)args->len != api->nargs) {
		g_array_free(args, TRUE);
		return;
	}
	/* The first argument is a timer (from_timer()'s is its container). */
	if (api->kind == API_SETUP || api->kind == API_INIT ||
	    (api->kind == API_RENAME && strcmp(api->name, "from_timer")))
		add_timer_name(sc, arg_last_name(t, a[0]));

	if (api->kind == API_RENAME &&
	    (!sc->opts || !sc->opts->renames ||
	     !g_hash_table_contains(sc->opts->renames, api->name))) {
		g_array_free(args, TRUE);
		return;
	}
	/* What a conversion writes on v4.14 for want of the v4.15 forms:
	 * DEFINE_TIMER(t, (TIMER_FUNC_TYPE)fn, 0, ...), the initialisers,
	 * __setup_timer_on_stack(t, (TIMER_FUNC_TYPE)fn, ...) */
	if ((api->kind == API_DEFINE || api->kind == API_INITIALIZER ||
	     (api->on_stack && api->nargs == 4)) &&
	    v414_cast(t, a[api->kind == API_INITIALIZER ? 0 : 1])) {
		record_cb_use(sc, arg_ident(t, a[api->kind == API_INITIALIZER ?
						 0 : 1]), NULL, false);
		g_array_free(args, TRUE);
		return;
	}
	/* The API's own definition (#define setup_timer(...) __setup_timer
	 * (...)) is not a use of it. */
	if (sc->cur_define && api_lookup(sc->cur_define,
					 strlen(sc->cur_define))) {
		g_array_free(args, TRUE);
		return;
	}
	s.type = SITE_API;
	s.api = api;
	s.line = t[i].line;
	s.col = t[i].col;
	s.end_line = t[close].line;
	s.func = g_strdup(sc->cur_func);
	s.text = join_tokens(t, i, close);
	s.define_name = g_strdup(sc->cur_define);
	if (api->kind == API_SETUP || api->kind == API_DEFINE ||
	    api->kind == API_INITIALIZER) {
		const struct token *cb =
			arg_ident(t, a[api->kind == API_INITIALIZER ? 0 : 1]);

		if (cb) {
			s.callback = tok_dup(cb);
			s.cb_line = cb->line;
			s.cb_col = cb->col;
		}
	}
	compat_site(sc, &s);
	/* compat code hands its callbacks to the old API on purpose */
	if (s.callback && !s.compat)
		record_cb_use(sc, arg_ident(t, a[api->kind == API_INITIALIZER ?
						 0 : 1]), NULL, false);
	if (api->kind != API_RENAME)
		sc->res->has_old_api = true;
	g_array_append_val(sc->res->sites, s);
	g_array_free(args, TRUE);
}

/* timer_setup(t, fn, f), DEFINE_TIMER(n, fn), __TIMER_INITIALIZER(fn, f) */
static void new_api_call(struct scanner *sc, size_t i)
{
	const struct token *t = sc->t;
	const struct token *tok = &t[i];
	size_t close;
	GArray *args;
	int cb_arg = -1;

	if (TOK_IS(tok, "timer_setup") || TOK_IS(tok, "timer_setup_on_stack"))
		cb_arg = 1;
	else if (TOK_IS(tok, "DEFINE_TIMER"))
		cb_arg = 1;
	else if (TOK_IS(tok, "__TIMER_INITIALIZER"))
		cb_arg = 0;
	args = split_args(t, sc->n, i + 1, &close);
	if (cb_arg >= 0 && (int)args->len > cb_arg && args->len <= 3)
		record_cb_use(sc, arg_ident(t, g_array_index(args, struct arg,
							       cb_arg)),
			      NULL, false);
	if (tok_in(tok, timer_funcs) && args->len >= 1)
		add_timer_name(sc, arg_last_name(t, g_array_index(args,
							struct arg, 0)));
	g_array_free(args, TRUE);
}

/* Where the object expression ending just before t[dot] starts. */
static size_t object_start(const struct token *t, size_t dot)
{
	size_t j = dot - 1;

	for (;;) {
		if (tok_punct(&t[j], ']')) {
			size_t o = tok_match_open(t, 0, j);

			if (o == SIZE_MAX || o == 0)
				return j;
			j = o - 1;
		}
		if (t[j].kind != TOK_IDENT)
			return j + 1;
		if (j >= 2 && is_member_op(&t[j - 1])) {
			j -= 2;
			continue;
		}
		return j;
	}
}

/* obj.data = x; obj->function = fn; */
static void member_assign(struct scanner *sc, size_t i)
{
	const struct token *t = sc->t;
	const struct token *obj;
	struct member_assign m = { 0 };
	bool is_data = TOK_IS(&t[i + 1], "data");
	size_t start, end;
	size_t j = i - 1;

	if (tok_punct(&t[j], ']')) {
		size_t o = tok_match_open(t, 0, j);

		if (o == SIZE_MAX || o == 0)
			return;
		j = o - 1;
	}
	obj = &t[j];
	if (obj->kind != TOK_IDENT)
		return;
	start = object_start(t, i);
	for (end = i + 3; end < sc->n && !tok_punct(&t[end], ';') &&
			  !tok_punct(&t[end], '}') &&
			  t[end].kind != TOK_EOF; end++)
		;
	m.object = tok_dup(obj);
	m.line = t[start].line;
	m.col = t[start].col;
	m.end_line = t[end < sc->n ? end : sc->n - 1].line;
	m.func = g_strdup(sc->cur_func);
	m.text = join_tokens(t, start, end);
	m.compat = in_compat(sc, m.line) ||
		   line_in_ranges(sc->res->dead_ranges, m.line) ||
		   (sc->cur_func && api_is_new_name(sc->cur_func,
						    strlen(sc->cur_func))) ||
		   sc->cur_define != NULL;
	if (is_data) {
		g_array_append_val(sc->res->data_assigns, m);
		return;
	}
	{
		struct arg a = { i + 3, end };
		const struct token *fn = arg_ident(t, a);

		if (fn)
			m.value = tok_dup(fn);
		g_array_append_val(sc->res->fn_assigns, m);
		if (m.value && !m.compat)
			record_cb_use(sc, fn, m.object,
				      tok_punct(&t[i + 3], '(') &&
				      fn != &t[i + 4] && !v414_cast(t, a));
	}
}

/* obj.data read: in a condition, an expression, a compound assignment. */
static void data_read(struct scanner *sc, size_t i)
{
	const struct token *t = sc->t;
	struct member_assign m = { 0 };
	size_t j = i - 1;
	size_t start;

	if (tok_punct(&t[j], ']')) {
		size_t o = tok_match_open(t, 0, j);

		if (o == SIZE_MAX || o == 0)
			return;
		j = o - 1;
	}
	if (t[j].kind != TOK_IDENT)
		return;
	start = object_start(t, i);
	m.object = tok_dup(&t[j]);
	m.line = t[start].line;
	m.col = t[start].col;
	m.end_line = t[i + 1].line;
	m.func = g_strdup(sc->cur_func);
	m.text = join_tokens(t, start, i + 1);
	m.compat = in_compat(sc, m.line) ||
		   line_in_ranges(sc->res->dead_ranges, m.line) ||
		   (sc->cur_func && api_is_new_name(sc->cur_func,
						    strlen(sc->cur_func))) ||
		   sc->cur_define != NULL;
	g_array_append_val(sc->res->data_reads, m);
}

static const char *const ulong_words[] = {
	"unsigned", "long", "int", "ulong", "u_long", NULL
};

/*
 * The class of the one parameter written in t[from, to): unsigned long
 * and its spellings (ulong, u_long, long, unsigned long int), a pointer,
 * or another type; *param is its name, if it has one.
 */
static enum param_class param_class(const struct token *t, size_t from,
				    size_t to, const struct token **param)
{
	size_t end = to;
	bool ptr = false, words_ok = true;

	*param = NULL;
	if (to > from + 1 && t[to - 1].kind == TOK_IDENT &&
	    (t[to - 2].kind == TOK_IDENT || tok_punct(&t[to - 2], '*'))) {
		/* the last name is the parameter unless it is a type word:
		 * (unsigned long) has none */
		if (!(tok_in(&t[to - 1], ulong_words) &&
		      (to == from + 1 || tok_in(&t[to - 2], ulong_words)))) {
			*param = &t[to - 1];
			end = to - 1;
		}
	}
	if (end == from)
		return PARAM_NONE;
	for (size_t k = from; k < end; k++) {
		if (tok_punct(&t[k], '*'))
			ptr = true;
		else if (t[k].kind != TOK_IDENT)
			return PARAM_NONE;
		else if (!tok_in(&t[k], ulong_words))
			words_ok = false;
	}
	if (ptr)
		return tok_punct(&t[end - 1], '*') ? PARAM_POINTER : PARAM_NONE;
	if (end == from + 1 && TOK_IS(&t[from], "void"))
		return PARAM_NONE;
	if (words_ok) {
		/* long, unsigned long, unsigned long int, ulong, u_long */
		int longs = 0;

		for (size_t k = from; k < end; k++)
			longs += TOK_IS(&t[k], "long") ||
				 TOK_IS(&t[k], "ulong") ||
				 TOK_IS(&t[k], "u_long");
		return longs == 1 ? PARAM_ULONG : PARAM_OTHER;
	}
	return PARAM_OTHER;
}

/* name(one parameter) followed by { or ; at file scope. */
static void one_param_function(struct scanner *sc, size_t i)
{
	const struct token *t = sc->t;
	struct ulong_func f = { 0 };
	size_t close = tok_match_close(t, sc->n, i + 1);
	const struct token *param;
	enum param_class cls;
	size_t j;

	if (close >= sc->n || close == i + 2)
		return;
	for (j = i + 2; j < close; j++)
		if (!(t[j].kind == TOK_IDENT || tok_punct(&t[j], '*')))
			return;
	cls = param_class(t, i + 2, close, &param);
	if (cls == PARAM_NONE)
		return;
	if (i == 0 || (t[i - 1].kind != TOK_IDENT &&
		       !tok_punct(&t[i - 1], '*')))
		return;
	j = close + 1;
	/* Attributes between ) and { or ;. */
	while (j < sc->n && t[j].kind == TOK_IDENT) {
		j++;
		if (tok_punct(&t[j], '('))
			j = tok_match_close(t, sc->n, j) + 1;
	}
	/* an unclosed attribute ( runs past the EOF token */
	if (j >= sc->n)
		return;
	if (tok_punct(&t[j], '{'))
		f.is_def = true;
	else if (!tok_punct(&t[j], ';'))
		return;
	for (size_t k = i; k-- > 0;) {
		if (t[k].flags & TF_PP || tok_punct(&t[k], ';') ||
		    tok_punct(&t[k], '}') || tok_punct(&t[k], '{'))
			break;
		if (TOK_IS(&t[k], "static"))
			f.is_static = true;
	}
	f.name = tok_dup(&t[i]);
	f.param = param ? tok_dup(param) : NULL;
	f.line = t[i].line;
	f.col = t[i].col;
	f.cls = cls;
	g_array_append_val(cls == PARAM_ULONG ? sc->res->ulong_funcs :
			   sc->res->other_funcs, f);
}

/* The name of the function whose body the '{' at t[i] opens, if any. */
static const struct token *function_name(const struct token *t, size_t i)
{
	size_t j = i;

	while (j > 0) {
		size_t o;

		j--;
		if (t[j].flags & TF_PP)
			continue;
		if (!tok_punct(&t[j], ')'))
			return NULL;
		o = tok_match_open(t, 0, j);
		if (o == SIZE_MAX || o == 0 || t[o - 1].kind != TOK_IDENT)
			return NULL;
		/* Skip attribute macros: foo(void) __acquires(x) { */
		if (t[o - 1].len > 2 && !memcmp(t[o - 1].p, "__", 2) &&
		    o >= 2 && tok_punct(&t[o - 2], ')')) {
			j = o - 1;
			continue;
		}
		return &t[o - 1];
	}
	return NULL;
}

struct pp_depth {
	int start;
	int after_first;
};

static void track_directive(struct scanner *sc, size_t i, GArray *pps,
			    int *depth)
{
	const struct token *t = sc->t;
	struct pp_depth *top = pps->len ?
		&g_array_index(pps, struct pp_depth, pps->len - 1) : NULL;

	if (!tok_punct(&t[i - 1], '#'))
		return;
	switch (t[i].pp) {
	case PP_IF:
	case PP_IFDEF:
	case PP_IFNDEF: {
		struct pp_depth d = { *depth, -1 };

		g_array_append_val(pps, d);
		break;
	}
	case PP_ELIF:
	case PP_ELSE:
		if (!top)
			break;
		if (top->after_first < 0)
			top->after_first = *depth;
		*depth = top->start;
		break;
	case PP_ENDIF:
		if (!top)
			break;
		if (top->after_first >= 0)
			*depth = top->after_first;
		g_array_set_size(pps, pps->len - 1);
		break;
	case PP_DEFINE:
		if (i + 1 < sc->n && t[i + 1].kind == TOK_IDENT) {
			g_free(sc->cur_define_buf);
			sc->cur_define_buf = tok_dup(&t[i + 1]);
		}
		break;
	case PP_INCLUDE: {
		char *name = lex_include_name(t, sc->n, i);

		if (name && name[0] == '"')
			g_ptr_array_add(sc->res->includes,
					g_strndup(name + 1, strlen(name) - 2));
		g_free(name);
		break;
	}
	default:
		break;
	}
}

/* The first token that ends after `at`, from t[lo] on (n tokens). */
static size_t token_at(const struct token *t, size_t lo, size_t n,
		       const char *at)
{
	size_t hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid].p + t[mid].len <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Mark the names that may be the API: they hold "timer" or "TIMER"
 * (MARK_CANDIDATE).  Among them, outside directives, mark the old and the
 * new API's names.  The names are found from where the text holds those
 * bytes, which is much faster than looking into every name.
 */
static void mark_tokens(struct scanner *sc, const char *data, size_t len)
{
	const char *at = data, *end = data + len;
	size_t k = 0;

	for (; (at = timer_bytes(at, end)) < end; at++) {
		const struct token *tok;
		const struct api *api;

		k = token_at(sc->t, k, sc->n, at);
		if (k == sc->n)
			break;
		tok = &sc->t[k];
		/* in a comment, or a name marked already */
		if (tok->p > at || tok->kind != TOK_IDENT ||
		    sc->mark[k] & MARK_CANDIDATE ||
		    !api_candidate(tok->p, tok->len))
			continue;
		sc->mark[k] |= MARK_CANDIDATE;
		if (tok->flags & TF_PP)
			continue;
		api = api_lookup(tok->p, tok->len);
		if (api && api->kind != API_RENAME)
			sc->mark[k] |= MARK_OLD_API;
		else if (api_is_new_name(tok->p, tok->len))
			sc->mark[k] |= MARK_NEW_API;
	}
}

static void scan_tokens(struct scanner *sc)
{
	const struct token *t = sc->t;
	GArray *pps = g_array_new(FALSE, FALSE, sizeof(struct pp_depth));
	int depth = 0;

	for (size_t i = 0; i < sc->n && t[i].kind != TOK_EOF; i++) {
		const struct token *tok = &t[i];
		bool body = tok->flags & TF_DEFINE_BODY;

		if ((tok->flags & TF_PP) && !body) {
			if (tok->kind == TOK_IDENT && i > 0)
				track_directive(sc, i, pps, &depth);
			if (tok->kind == TOK_PP_END)
				sc->cur_define = NULL;
			continue;
		}
		sc->cur_define = body ? sc->cur_define_buf : NULL;

		if (tok->kind == TOK_PUNCT && tok->len == 1 && !body &&
		    (tok->p[0] == '{' || tok->p[0] == '}')) {
			if (tok->p[0] == '{') {
				if (depth == 0) {
					const struct token *fn =
						function_name(t, i);

					g_free(sc->cur_func_buf);
					sc->cur_func_buf = fn ? tok_dup(fn) :
								NULL;
					sc->cur_func = sc->cur_func_buf;
				}
				depth++;
			} else if (tok->p[0] == '}' && depth > 0) {
				if (--depth == 0)
					sc->cur_func = NULL;
			}
			continue;
		}
		if (is_member_op(tok) && t[i + 1].kind == TOK_IDENT &&
		    (TOK_IS(&t[i + 1], "data") ||
		     TOK_IS(&t[i + 1], "function")) &&
		    tok_punct(&t[i + 2], '=') && i > 0) {
			member_assign(sc, i);
			continue;
		}
		if (is_member_op(tok) && TOK_IS(&t[i + 1], "data") && i > 0) {
			data_read(sc, i);
			continue;
		}
		if (tok->kind != TOK_IDENT)
			continue;
		if (TOK_IS(tok, "struct") && TOK_IS(&t[i + 1], "timer_list")) {
			timer_declarators(sc, i);
			continue;
		}
		if (!tok_punct(&t[i + 1], '('))
			continue;
		if (i > 0 && is_member_op(&t[i - 1]))
			continue;
		if (depth == 0 && !body)
			one_param_function(sc, i);
		/* every name below holds "timer" or "TIMER" */
		if (sc->mark[i] & MARK_CANDIDATE) {
			const struct api *api = api_lookup(tok->p, tok->len);

			if (api)
				api_call(sc, i, api);
			else if (api_is_new_name(tok->p, tok->len) ||
				 TOK_IS(tok, "DEFINE_TIMER") ||
				 tok_in(tok, timer_funcs))
				new_api_call(sc, i);
		}
	}
	g_array_free(pps, TRUE);
}

static void site_clear(struct site *s)
{
	g_free(s->func);
	g_free(s->text);
	g_free(s->callback);
	g_free(s->define_name);
	g_free(s->compat_why);
}

/* Drop calls of an API name that this very file defines for itself. */
static void drop_local_defs(struct scanner *sc)
{
	GArray *sites = sc->res->sites;

	if (!g_hash_table_size(sc->local_defs))
		return;
	for (guint i = 0; i < sites->len;) {
		struct site *s = &g_array_index(sites, struct site, i);

		if (s->api && g_hash_table_contains(sc->local_defs,
						    s->api->name)) {
			/* the array's clear function frees the site */
			g_array_remove_index(sites, i);
		} else {
			i++;
		}
	}
}

static void ulong_clear(gpointer p)
{
	struct ulong_func *f = p;

	g_free(f->name);
	g_free(f->param);
}

static void cb_clear(gpointer p)
{
	struct cb_use *u = p;

	g_free(u->name);
	g_free(u->object);
}

static void assign_clear(gpointer p)
{
	struct member_assign *m = p;

	g_free(m->object);
	g_free(m->value);
	g_free(m->func);
	g_free(m->text);
}

static void site_clear_cb(gpointer p)
{
	site_clear(p);
}

struct scan_result *scan_file(const char *data, size_t len,
			      const struct scan_opts *opts)
{
	return scan_file_reuse(data, len, opts, NULL);
}

struct scan_result *scan_file_reuse(const char *data, size_t len,
				    const struct scan_opts *opts,
				    GArray *scratch)
{
	struct scan_result *res = g_new0(struct scan_result, 1);
	struct scanner sc = { 0 };
	size_t ntok;
	struct token *tokens;

	res->sites = g_array_new(FALSE, FALSE, sizeof(struct site));
	g_array_set_clear_func(res->sites, site_clear_cb);
	res->ulong_funcs = g_array_new(FALSE, FALSE, sizeof(struct ulong_func));
	g_array_set_clear_func(res->ulong_funcs, ulong_clear);
	res->other_funcs = g_array_new(FALSE, FALSE, sizeof(struct ulong_func));
	g_array_set_clear_func(res->other_funcs, ulong_clear);
	res->cb_uses = g_array_new(FALSE, FALSE, sizeof(struct cb_use));
	g_array_set_clear_func(res->cb_uses, cb_clear);
	res->data_assigns = g_array_new(FALSE, FALSE,
					sizeof(struct member_assign));
	g_array_set_clear_func(res->data_assigns, assign_clear);
	res->fn_assigns = g_array_new(FALSE, FALSE,
				      sizeof(struct member_assign));
	g_array_set_clear_func(res->fn_assigns, assign_clear);
	res->data_reads = g_array_new(FALSE, FALSE,
				      sizeof(struct member_assign));
	g_array_set_clear_func(res->data_reads, assign_clear);
	res->timer_names = g_hash_table_new_full(g_str_hash, g_str_equal,
						 g_free, NULL);
	res->includes = g_ptr_array_new_with_free_func(g_free);

#ifdef TIMERCONV_ASAN
	/* every file its own array, without spare room: a read past the
	 * EOF token is then caught, not served from an earlier file */
	scratch = NULL;
#endif
	if (scratch) {
		lex_into(scratch, data, len);
		tokens = (struct token *)scratch->data;
		ntok = scratch->len;
	} else {
		tokens = lex_all(data, len, &ntok);
	}
	sc.t = tokens;
	sc.n = ntok;
	sc.opts = opts;
	sc.res = res;
	sc.local_defs = g_hash_table_new(g_str_hash, g_str_equal);
	sc.mark = g_malloc0(ntok);
	mark_tokens(&sc, data, len);
	res->compat_ranges = ppcond_compat_ranges(tokens, ntok, sc.mark,
						  &res->dead_ranges);
	scan_tokens(&sc);
	drop_local_defs(&sc);

	g_hash_table_destroy(sc.local_defs);
	g_free(sc.cur_func_buf);
	g_free(sc.cur_define_buf);
	g_free(sc.mark);
	if (!scratch)
		g_free(tokens);
	return res;
}

static int site_cmp(gconstpointer a, gconstpointer b);

/* Why code at `line` is left alone on purpose, or NULL. */
static const char *skip_reason(const struct scan_result *res,
			       unsigned int line)
{
	if (line_in_ranges(res->dead_ranges, line))
		return "dead code (#if 0)";
	if (line_in_ranges(res->compat_ranges, line))
		return "compat branch";
	return NULL;
}

static struct site site_from_assign(const struct scan_result *res,
				    const struct member_assign *m,
				    enum site_type type)
{
	struct site s = { 0 };
	const char *why = skip_reason(res, m->line);

	s.type = type;
	s.line = m->line;
	s.col = m->col;
	s.end_line = m->end_line;
	s.func = g_strdup(m->func);
	s.text = g_strdup(m->text);
	if (m->compat) {
		s.compat = true;
		s.compat_why = g_strdup(why ? why : "compat definition");
	}
	return s;
}

static bool is_timer(GHashTable *own, GHashTable *hdr, const char *name)
{
	return g_hash_table_contains(own, name) ||
	       (hdr && g_hash_table_contains(hdr, name));
}

static bool has_site_at(const struct scan_result *res, unsigned int line,
			unsigned int col)
{
	for (guint i = 0; i < res->sites->len; i++) {
		const struct site *s = &g_array_index(res->sites, struct site,
						      i);

		if (s->line == line && s->col == col)
			return true;
	}
	return false;
}

/* Definitions of callbacks named in `names` taking unsigned long. */
static void add_callback_sites(struct scan_result *res, GHashTable *names,
			       bool with_static)
{
	for (guint i = 0; i < res->ulong_funcs->len; i++) {
		struct ulong_func *f = &g_array_index(res->ulong_funcs,
						      struct ulong_func, i);
		struct site s = { 0 };
		const char *why;

		if (!f->is_def || !g_hash_table_contains(names, f->name) ||
		    (f->is_static && !with_static) ||
		    has_site_at(res, f->line, f->col))
			continue;
		s.type = SITE_ULONG_CALLBACK;
		s.line = f->line;
		s.col = f->col;
		s.end_line = f->line;
		s.func = g_strdup(f->name);
		s.callback = g_strdup(f->name);
		s.text = g_strdup_printf("%s(unsigned long %s)", f->name,
					 f->param ? f->param : "");
		why = skip_reason(res, f->line);
		if (why) {
			s.compat = true;
			s.compat_why = g_strdup(why);
		}
		g_array_append_val(res->sites, s);
	}
}

void scan_add_callbacks(struct scan_result *res, GHashTable *names)
{
	add_callback_sites(res, names, false);
	g_array_sort(res->sites, site_cmp);
}

static int site_cmp(gconstpointer a, gconstpointer b)
{
	const struct site *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->col < y->col ? -1 : x->col > y->col;
}

/* The .data lines of `members` (struct member_assign) on timers. */
static void add_data_sites(struct scan_result *res, GHashTable *header_timers,
			   GArray *members, enum site_type type)
{
	for (guint i = 0; i < members->len; i++) {
		struct member_assign *m = &g_array_index(members,
						struct member_assign, i);
		struct site s;

		if (!is_timer(res->timer_names, header_timers, m->object))
			continue;
		s = site_from_assign(res, m, type);
		g_array_append_val(res->sites, s);
		if (!s.compat)
			res->has_old_api = true;
	}
}

void scan_resolve(struct scan_result *res, GHashTable *header_timers)
{
	GHashTable *cb_names = g_hash_table_new(g_str_hash, g_str_equal);

	if (!res->cast_handed)
		res->cast_handed = g_hash_table_new_full(g_str_hash,
							 g_str_equal, g_free,
							 NULL);
	add_data_sites(res, header_timers, res->data_assigns,
		       SITE_DATA_ASSIGN);
	add_data_sites(res, header_timers, res->data_reads, SITE_DATA_READ);
	/* Callbacks handed to a timer: API calls, and .function on timers. */
	for (guint i = 0; i < res->cb_uses->len; i++) {
		struct cb_use *u = &g_array_index(res->cb_uses,
						  struct cb_use, i);

		if (!u->object ||
		    is_timer(res->timer_names, header_timers, u->object)) {
			g_hash_table_add(cb_names, u->name);
			if (u->cast && !g_hash_table_contains(res->cast_handed,
							      u->name))
				g_hash_table_add(res->cast_handed,
						 g_strdup(u->name));
		}
	}
	add_callback_sites(res, cb_names, true);
	/* Keep the names for joining across files (non-static ones). */
	if (!res->handed)
		res->handed = g_hash_table_new_full(g_str_hash, g_str_equal,
						    g_free, NULL);
	{
		GHashTableIter it;
		gpointer key;

		g_hash_table_iter_init(&it, cb_names);
		while (g_hash_table_iter_next(&it, &key, NULL))
			g_hash_table_add(res->handed, g_strdup(key));
	}
	g_hash_table_destroy(cb_names);
	g_array_sort(res->sites, site_cmp);
}

void scan_result_free(struct scan_result *res)
{
	if (!res)
		return;
	g_array_free(res->sites, TRUE);
	g_array_free(res->ulong_funcs, TRUE);
	g_array_free(res->other_funcs, TRUE);
	g_array_free(res->cb_uses, TRUE);
	g_array_free(res->data_assigns, TRUE);
	g_array_free(res->data_reads, TRUE);
	g_array_free(res->fn_assigns, TRUE);
	g_hash_table_destroy(res->timer_names);
	if (res->handed)
		g_hash_table_destroy(res->handed);
	if (res->cast_handed)
		g_hash_table_destroy(res->cast_handed);
	g_ptr_array_free(res->includes, TRUE);
	g_array_free(res->compat_ranges, TRUE);
	g_array_free(res->dead_ranges, TRUE);
	g_free(res);
}

const char *site_kind(const struct site *s)
{
	switch (s->type) {
	case SITE_API:
		return s->api->name;
	case SITE_DATA_ASSIGN:
		return "data-field";
	case SITE_DATA_READ:
		return "data-read";
	case SITE_ULONG_CALLBACK:
		return "ulong-callback";
	}
	return "?";
}
