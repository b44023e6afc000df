// Command hello prints hello: a small command for testbin's own tests.
package main

import "fmt"

func main() { fmt.Println("hello") }
