// SPDX-License-Identifier: GPL-2.0
/*
 * The driver's side of the facts+patch pass (see speculate.h): a Unix
 * socket served by one thread, which plans each file spatch asks about
 * with the files already heard from, and the check that keeps a result
 * only where that plan is the real one.
 *
 * The protocol, both ways: a decimal length, a newline, then that many
 * bytes.  A request is the file's path (as spatch names it) on a line,
 * then its facts records; the answer is its plan, as JSON, or null for a
 * file the driver did not hand to spatch.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "blank.h"
#include "env.h"
#include "spatch.h"
#include "speculate.h"
#include "util.h"

/* A request bigger than this is not from our rules. */
#define MAX_REQUEST (64 * 1024 * 1024)

struct speculation {
	struct conversion *cv;
	bool keep_in_scope;
	char *dir;		/* the scratch copies */
	char *path;		/* the socket */
	int listen_fd;
	int wake[2];		/* a byte on wake[1] ends the thread */
	GThread *thread;
	GHashTable *by_input;	/* absolute scratch path -> struct cfile * */
	GHashTable *by_name;	/* callback name -> GPtrArray of cfile * */
	GHashTable *heard;	/* cfile * -> struct file_facts * it sent */
	GArray *clients;	/* int */
	guint served;
	gint64 busy;		/* microseconds spent planning */
	size_t blanked;		/* bytes of the inputs blanked */
};

/* ---- plans ---- */

static JsonNode *sorted_node(JsonNode *node);

static gint cmp_str(gconstpointer a, gconstpointer b)
{
	return strcmp(a, b);
}

static JsonNode *sorted_object(JsonObject *o)
{
	JsonObject *out = json_object_new();
	GList *names = g_list_sort(json_object_get_members(o), cmp_str);
	JsonNode *node = json_node_new(JSON_NODE_OBJECT);

	for (GList *l = names; l; l = l->next)
		json_object_set_member(out, l->data,
			sorted_node(json_object_get_member(o, l->data)));
	g_list_free(names);
	json_node_take_object(node, out);
	return node;
}

static JsonNode *sorted_node(JsonNode *node)
{
	JsonArray *in, *out;
	JsonNode *copy;

	if (JSON_NODE_HOLDS_OBJECT(node))
		return sorted_object(json_node_get_object(node));
	if (!JSON_NODE_HOLDS_ARRAY(node))
		return json_node_copy(node);
	in = json_node_get_array(node);
	out = json_array_new();
	for (guint i = 0; i < json_array_get_length(in); i++)
		json_array_add_element(out,
			sorted_node(json_array_get_element(in, i)));
	copy = json_node_new(JSON_NODE_ARRAY);
	json_node_take_array(copy, out);
	return copy;
}

char *plan_canonical(JsonObject *plan)
{
	JsonNode *node;
	char *text;

	if (!plan)
		return g_strdup("{}");
	node = sorted_object(plan);
	text = json_to_string(node, FALSE);
	json_node_unref(node);
	return text;
}

/* Files planned together at most; past this, a file is planned alone. */
#define MAX_GROUP 16

/*
 * f, then the files already heard from that name one of its callbacks,
 * then theirs, and so on.  A unit across files is then planned whole by
 * its last file to ask; the others are rewritten again after the pass.
 */
static GPtrArray *group_of(struct speculation *s, struct cfile *f)
{
	GPtrArray *group = g_ptr_array_new();
	GHashTable *seen = g_hash_table_new(NULL, NULL);

	g_ptr_array_add(group, f);
	g_hash_table_add(seen, f);
	for (guint i = 0; i < group->len && group->len <= MAX_GROUP; i++) {
		struct cfile *g = group->pdata[i];

		for (guint k = 0; k < g->cb_names->len; k++) {
			GPtrArray *users = g_hash_table_lookup(s->by_name,
						g->cb_names->pdata[k]);

			for (guint u = 0; users && u < users->len; u++) {
				struct cfile *h = users->pdata[u];

				if (!g_hash_table_contains(s->heard, h) ||
				    !g_hash_table_add(seen, h))
					continue;
				g_ptr_array_add(group, h);
			}
		}
	}
	if (group->len > MAX_GROUP)
		g_ptr_array_set_size(group, 1);
	g_hash_table_destroy(seen);
	return group;
}

/*
 * The plan for f with `facts` as its facts, made from f and the files of
 * its group alone (their facts as they sent them): a conversion of its
 * own, sharing the tree's struct index (built before spatch started, and
 * only read here).
 */
static char *plan_group(struct speculation *s, struct cfile *f,
			struct file_facts *facts)
{
	struct conversion *cv = s->cv;
	struct conversion sub = {
		.tree = cv->tree, .target = cv->target,
		.structs = cv->structs, .structs_cached = cv->structs_cached,
		.include_dirs = cv->include_dirs, .all_files = cv->all_files,
		.jobs = 1, .keep_data = cv->keep_data,
	};
	GPtrArray *group = group_of(s, f);
	struct cfile *copies = g_new(struct cfile, group->len);
	JsonObject *plan;
	char *text;

	sub.files = g_ptr_array_new();
	sub.by_path = g_hash_table_new(g_str_hash, g_str_equal);
	for (guint i = 0; i < group->len; i++) {
		struct cfile *c = &copies[i];

		*c = *(struct cfile *)group->pdata[i];
		c->facts = i ? g_hash_table_lookup(s->heard, group->pdata[i]) :
			   facts;
		c->tokens = NULL;
		c->ntok = 0;
		g_ptr_array_add(sub.files, c);
		g_hash_table_insert(sub.by_path, c->path, c);
	}
	sub.sites = g_ptr_array_new();
	sub.units = g_ptr_array_new();
	plan_build(&sub);
	if (s->keep_in_scope)
		plan_keep_in_scope(&sub);
	plan = plan_for_file(&sub, &copies[0]);
	text = plan_canonical(plan);
	if (plan)
		json_object_unref(plan);
	plan_free(&sub);
	for (guint i = 0; i < group->len; i++)
		g_free(copies[i].tokens);
	g_free(copies);
	g_ptr_array_free(group, TRUE);
	g_ptr_array_free(sub.files, TRUE);
	g_hash_table_destroy(sub.by_path);
	return text;
}

/* ---- the socket ---- */

/* All len bytes, through short counts and signals: read, or write. */
static bool transfer(int fd, char *buf, size_t len, bool out)
{
	while (len) {
		ssize_t n = out ? write(fd, buf, len) : read(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= (size_t)n;
	}
	return true;
}

/* "<length>\n" then the bytes; NULL at the end of the connection. */
static char *read_message(int fd)
{
	char head[24];
	size_t n = 0;
	char *end, *body;
	guint64 len;

	for (;;) {
		if (n == sizeof(head) - 1 || !transfer(fd, head + n, 1, false))
			return NULL;
		if (head[n] == '\n')
			break;
		n++;
	}
	head[n] = '\0';
	len = g_ascii_strtoull(head, &end, 10);
	if (!n || *end || len > MAX_REQUEST)
		return NULL;
	body = g_malloc(len + 1);
	if (!transfer(fd, body, len, false)) {
		g_free(body);
		return NULL;
	}
	body[len] = '\0';
	return body;
}

/* One request: plan the file it names, keep the plan, answer with it. */
static bool serve(struct speculation *s, int fd)
{
	char *req = read_message(fd);
	char *nl, *plan, *head;
	struct cfile *f;
	gint64 start;
	bool ok;

	if (!req)
		return false;
	nl = strchr(req, '\n');
	if (nl)
		*nl = '\0';
	f = g_hash_table_lookup(s->by_input, req);
	start = g_get_monotonic_time();
	/* a file we did not hand out has no plan: the rules fail it */
	if (f) {
		struct file_facts *facts = facts_parse(nl ? nl + 1 : "");

		plan = plan_group(s, f, facts);
		g_hash_table_replace(s->heard, f, facts);
	} else {
		plan = g_strdup("null");
	}
	s->busy += g_get_monotonic_time() - start;
	s->served++;
	head = g_strdup_printf("%zu\n", strlen(plan));
	ok = transfer(fd, head, strlen(head), true) &&
	     transfer(fd, plan, strlen(plan), true);
	if (f) {
		g_free(f->spec_plan);
		f->spec_plan = plan;
	} else {
		g_free(plan);
	}
	g_free(head);
	g_free(req);
	return ok;
}

static void drop_client(struct speculation *s, guint i)
{
	close(g_array_index(s->clients, int, i));
	g_array_remove_index_fast(s->clients, i);
}

/* Requests are served one at a time: the planner is not shared. */
static gpointer server(gpointer data)
{
	struct speculation *s = data;
	GArray *fds = g_array_new(FALSE, TRUE, sizeof(struct pollfd));

	for (;;) {
		struct pollfd *p;
		guint n = s->clients->len;

		g_array_set_size(fds, n + 2);
		p = (struct pollfd *)(void *)fds->data;
		p[0] = (struct pollfd){ .fd = s->wake[0], .events = POLLIN };
		p[1] = (struct pollfd){ .fd = s->listen_fd, .events = POLLIN };
		for (guint i = 0; i < n; i++)
			p[i + 2] = (struct pollfd){
				.fd = g_array_index(s->clients, int, i),
				.events = POLLIN,
			};
		if (poll(p, n + 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents)
			break;
		if (p[1].revents & POLLIN) {
			int c = accept(s->listen_fd, NULL, NULL);

			if (c >= 0)
				g_array_append_val(s->clients, c);
		}
		for (guint i = n; i-- > 0;)
			if (p[i + 2].revents && !serve(s, p[i + 2].fd))
				drop_client(s, i);
	}
	g_array_free(fds, TRUE);
	return NULL;
}

struct speculation *spec_start(struct conversion *cv, const char *workdir,
			       bool keep_in_scope, GError **error)
{
	struct speculation *s = g_new0(struct speculation, 1);
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

	s->cv = cv;
	s->keep_in_scope = keep_in_scope;
	s->dir = g_build_filename(workdir, "spec", NULL);
	s->path = g_build_filename(workdir, "plan.sock", NULL);
	s->by_input = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
					    NULL);
	s->by_name = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
		(GDestroyNotify)g_ptr_array_unref);
	s->heard = g_hash_table_new_full(NULL, NULL, NULL,
					 (GDestroyNotify)facts_free);
	s->clients = g_array_new(FALSE, FALSE, sizeof(int));
	s->wake[0] = s->wake[1] = -1;
	s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (strlen(s->path) >= sizeof(addr.sun_path)) {
		g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NAMETOOLONG,
			    "%s: path too long for a socket", s->path);
		goto fail;
	}
	strcpy(addr.sun_path, s->path);
	if (s->listen_fd < 0 ||
	    bind(s->listen_fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(s->listen_fd, 16) || pipe2(s->wake, O_CLOEXEC)) {
		g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(errno),
			    "%s: %s", s->path, g_strerror(errno));
		goto fail;
	}
	/* the struct index is built here, before the thread reads it */
	conv_structs(cv);
	s->thread = g_thread_new("spec", server, s);
	return s;
fail:
	spec_free(s);
	return NULL;
}

const char *spec_socket(const struct speculation *s)
{
	return s->path;
}

char *spec_input(struct speculation *s, struct cfile *f, bool blank,
		 GError **error)
{
	size_t blanked = 0;
	char *text = blank ? cfile_blanked_text(f, &blanked) : NULL;
	char *abs = cfile_scratch_write(f, s->dir, text ? text : f->text,
					f->len, error);

	s->blanked += blanked;
	f->spec_blanked = text != NULL;
	g_free(text);
	if (!abs)
		return NULL;
	g_hash_table_insert(s->by_input, g_strdup(abs), f);
	for (guint i = 0; i < f->cb_names->len; i++) {
		char *name = f->cb_names->pdata[i];
		GPtrArray *users = g_hash_table_lookup(s->by_name, name);

		if (!users) {
			users = g_ptr_array_new();
			g_hash_table_insert(s->by_name, name, users);
		}
		g_ptr_array_add(users, f);
	}
	return abs;
}

static guint find_root(GArray *parent, guint i)
{
	while (g_array_index(parent, guint, i) != i)
		i = g_array_index(parent, guint, i);
	return i;
}

void spec_group(struct speculation *s, GPtrArray *sfiles, GPtrArray *files)
{
	GHashTable *index = g_hash_table_new(NULL, NULL);
	GArray *parent = g_array_sized_new(FALSE, FALSE, sizeof(guint),
					   files->len);
	GArray *members = g_array_new(FALSE, TRUE, sizeof(guint));
	GArray *largest = g_array_new(FALSE, TRUE, sizeof(size_t));
	GHashTableIter it;
	gpointer users;

	for (guint i = 0; i < files->len; i++) {
		g_hash_table_insert(index, files->pdata[i], GUINT_TO_POINTER(i));
		g_array_append_val(parent, i);
	}
	g_hash_table_iter_init(&it, s->by_name);
	while (g_hash_table_iter_next(&it, NULL, &users)) {
		GPtrArray *u = users;
		guint a = GPOINTER_TO_UINT(g_hash_table_lookup(index,
							       u->pdata[0]));

		for (guint k = 1; k < u->len; k++) {
			guint b = GPOINTER_TO_UINT(g_hash_table_lookup(index,
							u->pdata[k]));

			g_array_index(parent, guint, find_root(parent, b)) =
				find_root(parent, a);
		}
	}
	/* each group's size in files, and its largest file */
	g_array_set_size(members, files->len);
	g_array_set_size(largest, files->len);
	for (guint i = 0; i < files->len; i++) {
		guint root = find_root(parent, i);
		size_t *big = &g_array_index(largest, size_t, root);

		g_array_index(members, guint, root)++;
		*big = MAX(*big, ((struct spatch_file *)sfiles->pdata[i])->size);
	}
	for (guint i = 0; i < files->len; i++) {
		struct spatch_file *sf = sfiles->pdata[i];
		guint root = find_root(parent, i);

		if (g_array_index(members, guint, root) < 2)
			continue;
		sf->group = root + 1;
		sf->group_size = g_array_index(largest, size_t, root);
	}
	g_array_free(largest, TRUE);
	g_array_free(members, TRUE);
	g_array_free(parent, TRUE);
	g_hash_table_destroy(index);
}

void spec_stop(struct speculation *s)
{
	if (!s->thread)
		return;
	if (write(s->wake[1], "", 1) != 1)
		g_warning("cannot stop the plan server");
	g_thread_join(s->thread);
	s->thread = NULL;
	if (env_timings())
		fprintf(stderr, "timerconv: timing: %u plans asked for, %.2f s planning; %zu KiB of function bodies blanked\n",
			s->served, (double)s->busy / G_USEC_PER_SEC,
			s->blanked / 1024);
	while (s->clients->len)
		drop_client(s, s->clients->len - 1);
}

void spec_free(struct speculation *s)
{
	if (!s)
		return;
	spec_stop(s);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	for (int i = 0; i < 2; i++)
		if (s->wake[i] >= 0)
			close(s->wake[i]);
	if (s->path)
		unlink(s->path);
	g_hash_table_destroy(s->by_input);
	g_hash_table_destroy(s->by_name);
	g_hash_table_destroy(s->heard);
	g_array_free(s->clients, TRUE);
	g_free(s->dir);
	g_free(s->path);
	g_free(s);
}

/* ---- results ---- */

/* spatch's result on the blanked copy at input, merged into f's text;
 * NULL when it cannot be. */
static char *merge_blanked(struct cfile *f, const char *input, char *result,
			   gsize *len)
{
	char *blanked = NULL, *merged = NULL;
	gsize blanked_len;
	size_t merged_len;

	if (g_file_get_contents(input, &blanked, &blanked_len, NULL))
		merged = blank_merge(f->text, f->len, blanked, blanked_len,
				     result, *len, &merged_len);
	g_free(blanked);
	g_free(result);
	if (merged)
		*len = merged_len;
	return merged;
}

void spec_result(struct cfile *f, const char *input, struct file_facts *ff,
		 bool ok)
{
	char *res = g_strconcat(input, SPATCH_RESULT, NULL);
	char *text = NULL;
	gsize len = 0;

	f->spec_done = facts_take_done(ff);
	f->spec_ok = ok;
	/* spatch leaves a result only for a file it changed */
	if (ok && g_file_test(res, G_FILE_TEST_EXISTS) &&
	    !g_file_get_contents(res, &text, &len, NULL))
		f->spec_ok = false;
	if (text && f->spec_blanked)
		text = merge_blanked(f, input, text, &len);
	if (!text && f->spec_blanked && f->spec_ok &&
	    g_file_test(res, G_FILE_TEST_EXISTS))
		f->spec_ok = false;
	if (text && len == f->len && !memcmp(text, f->text, len)) {
		g_free(text);
		text = NULL;
	}
	f->spec_text = text;
	f->spec_len = len;
	g_free(res);
}

bool spec_take(struct cfile *f, JsonObject *plan)
{
	char *want;
	bool same;

	/* spec_result() ran for it and spatch got to the end */
	if (!f->spec_ok)
		return false;
	want = plan_canonical(plan);
	same = !f->spec_plan || !strcmp(want, f->spec_plan);
	if (!same && env_spec_debug())
		fprintf(stderr, "SPEC %s\n  had  %s\n  want %s\n", f->path,
			f->spec_plan, want);
	g_free(want);
	if (!same)
		return false;
	g_free(f->new_text);
	f->new_text = f->spec_text;
	f->new_len = f->spec_len;
	f->spec_text = NULL;
	facts_free(f->done);
	f->done = f->spec_done;
	f->spec_done = NULL;
	return true;
}
