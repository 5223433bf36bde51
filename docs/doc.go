// Package docs holds imbench's documentation; its test checks the links and make targets it names.
package docs
