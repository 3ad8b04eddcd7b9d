// SPDX-License-Identifier: GPL-2.0
#include <gio/gio.h>
#include <string.h>

#include "gitutil.h"
#include "util.h"

bool git_runv(const char *dir, const char *const *args, char **out,
	      GError **error)
{
	GPtrArray *argv = g_ptr_array_new();
	GSubprocess *proc;
	GBytes *o = NULL, *e = NULL;
	bool ok = false;

	g_ptr_array_add(argv, "git");
	g_ptr_array_add(argv, "-C");
	g_ptr_array_add(argv, (char *)dir);
	for (int i = 0; args[i]; i++)
		g_ptr_array_add(argv, (char *)args[i]);
	g_ptr_array_add(argv, NULL);
	proc = g_subprocess_newv((const char *const *)argv->pdata,
				 G_SUBPROCESS_FLAGS_STDOUT_PIPE |
				 G_SUBPROCESS_FLAGS_STDERR_PIPE, error);
	if (!proc)
		goto out;
	if (!g_subprocess_communicate(proc, NULL, NULL, &o, &e, error))
		goto out;
	if (!g_subprocess_get_if_exited(proc) ||
	    g_subprocess_get_exit_status(proc) != 0) {
		gsize n = 0;
		const char *d = e ? g_bytes_get_data(e, &n) : NULL;
		char *msg = g_utf8_make_valid(d ? d : "", n);

		g_set_error(error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
			    "git %s failed: %s", args[0],
			    *g_strchomp(msg) ? msg : "(no message)");
		g_free(msg);
		goto out;
	}
	ok = true;
	if (out)
		*out = bytes_to_string(o);
out:
	if (o)
		g_bytes_unref(o);
	if (e)
		g_bytes_unref(e);
	if (proc)
		g_object_unref(proc);
	g_ptr_array_free(argv, TRUE);
	return ok;
}

bool git_run(const char *dir, char **out, GError **error, ...)
{
	GPtrArray *args = g_ptr_array_new();
	va_list ap;
	const char *a;
	bool ok;

	va_start(ap, error);
	while ((a = va_arg(ap, const char *)))
		g_ptr_array_add(args, (char *)a);
	va_end(ap);
	g_ptr_array_add(args, NULL);
	ok = git_runv(dir, (const char *const *)args->pdata, out, error);
	g_ptr_array_free(args, TRUE);
	return ok;
}

char *git_config(const char *dir, const char *key)
{
	char *out = NULL;

	if (!git_run(dir, &out, NULL, "config", "--get", key, NULL))
		return NULL;
	g_strchomp(out);
	if (!*out) {
		g_free(out);
		return NULL;
	}
	return out;
}
