// Package jumpforward finds the bytes a grammar forces next and turns them
// into canonical tokens, so an engine can append them without running the
// model for each one.
package jumpforward
