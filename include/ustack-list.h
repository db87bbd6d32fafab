/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The one list of libustack: circular, doubly linked and intrusive, as the
 * kernel's list_head. An empty list (or a node on none) points to itself.
 */
#ifndef _USTACK_LIST_H
#define _USTACK_LIST_H

#include <stdbool.h>
#include <stddef.h>

#define ustack_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

struct ustack_list {
	struct ustack_list	*prev;
	struct ustack_list	*next;
};

static inline void ustack_list_init(struct ustack_list *head)
{
	head->prev = head;
	head->next = head;
}

static inline bool ustack_list_empty(const struct ustack_list *head)
{
	return head->next == head;
}

static inline void ustack_list_add_tail(struct ustack_list *node, struct ustack_list *head)
{
	node->prev = head->prev;
	node->next = head;
	head->prev->next = node;
	head->prev = node;
}

static inline void ustack_list_add(struct ustack_list *node, struct ustack_list *head)
{
	ustack_list_add_tail(node, head->next);
}

/* Unlink @node and leave it on no list (ustack_list_empty() is true). */
static inline void ustack_list_del(struct ustack_list *node)
{
	node->prev->next = node->next;
	node->next->prev = node->prev;
	ustack_list_init(node);
}

#define ustack_list_entry(ptr, type, member) \
	ustack_container_of(ptr, type, member)

#define ustack_list_first_entry(head, type, member) \
	ustack_list_entry((head)->next, type, member)

#define ustack_list_for_each(pos, head) \
	for (pos = (head)->next; pos != (head); pos = pos->next)

/* @tmp keeps the next node: @pos may be deleted in the loop body. */
#define ustack_list_for_each_safe(pos, tmp, head) \
	for (pos = (head)->next, tmp = pos->next; pos != (head); \
	     pos = tmp, tmp = pos->next)

#endif /* _USTACK_LIST_H */
