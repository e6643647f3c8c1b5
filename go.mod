module github.com/reinlm/rein

go 1.26

require (
	github.com/dlclark/regexp2 v1.12.0
	github.com/stretchr/testify v1.12.1
	github.com/tidwall/gjson v1.20.0
	golang.org/x/text v0.36.0
	gorgonia.org/cu v0.9.6
)

require (
	github.com/google/uuid v1.1.1 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
