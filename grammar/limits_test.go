package grammar

import (
	"reflect"
	"testing"
)

// Every field of Limits must have a positive default, and WithDefaults must
// fill each one: a field added without a default would silently mean "no
// limit" or "nothing allowed".
func TestLimitsDefaults(t *testing.T) {
	d := reflect.ValueOf(DefaultLimits())
	got := reflect.ValueOf(Limits{}.WithDefaults())
	for i := range d.NumField() {
		name := d.Type().Field(i).Name
		if d.Field(i).Int() <= 0 {
			t.Errorf("DefaultLimits.%s = %d, want > 0", name, d.Field(i).Int())
		}
		if got.Field(i).Int() != d.Field(i).Int() {
			t.Errorf("Limits{}.WithDefaults().%s = %d, want %d", name, got.Field(i).Int(), d.Field(i).Int())
		}
	}
	custom := Limits{StepWork: 7, Rules: -1}.WithDefaults()
	if custom.StepWork != 7 || custom.Rules != DefaultLimits().Rules {
		t.Errorf("WithDefaults kept StepWork=%d Rules=%d, want 7 and %d", custom.StepWork, custom.Rules, DefaultLimits().Rules)
	}
}
