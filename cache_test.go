package rein

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCachedTimeoutExpires: a cached failure with an expiry is served until
// then and leaves at the first look after it; one without stays.
func TestCachedTimeoutExpires(t *testing.T) {
	c := lru{budget: 1 << 20}
	c.put("timeout", result{err: errors.New("took too long"), keep: true, expires: time.Now().Add(time.Hour)})
	c.put("expired", result{err: errors.New("took too long"), keep: true, expires: time.Now().Add(-time.Second)})
	c.put("bad", result{err: errors.New("bad schema"), keep: true})
	require.Equal(t, 3, c.len())
	assert.NotNil(t, c.get("timeout"))
	assert.Nil(t, c.get("expired"))
	assert.NotNil(t, c.get("bad"))
	assert.Equal(t, 2, c.len())
	assert.Equal(t, 2, c.failed)
}
