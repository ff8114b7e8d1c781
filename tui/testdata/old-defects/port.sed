# The one change tui/defects_test.go needs to compile on the old code: the
# old preset picker takes no presets.Env (it could not tell whether the data
# are there). What the test asserts is unchanged.
s/newPicker(&st, \[\]\*presets\.Preset{p}, nil, presets\.Env{DataDir: [a-zA-Z.()]*})/newPicker(\&st, []*presets.Preset{p}, nil)/
